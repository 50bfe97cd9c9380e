#include "app/util/npy.hpp"

namespace normbench {

std::string npy_header(NpyType type, const std::vector<int64_t>& shape) {
  std::string dict = "{'descr': '";
  dict += type == NpyType::float32 ? "<f4" : "<f8";
  dict += "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) dict += (i ? ", " : "") + std::to_string(shape[i]);
  dict += shape.size() == 1 ? ",), }" : "), }";  // a 1-tuple needs its comma: (3,)
  // Magic (6) + version (2) + header length (2) + dict + padding + '\n', a multiple of 64.
  const size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string header("\x93NUMPY\x01\x00", 8);
  header += static_cast<char>(dict.size() & 0xff);
  header += static_cast<char>((dict.size() >> 8) & 0xff);
  return header + dict;
}

NpyWriter::NpyWriter(const std::string& path, NpyType type, const std::vector<int64_t>& shape)
    : file_(path) {
  file_.write(npy_header(type, shape));
}

void write_npy(const std::string& path, const float* data, const std::vector<int64_t>& shape) {
  NpyWriter writer(path, NpyType::float32, shape);
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  writer.append(data, static_cast<size_t>(n) * sizeof(float));
  writer.commit();
}

}  // namespace normbench
