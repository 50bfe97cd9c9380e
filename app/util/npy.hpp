// Writing NumPy .npy files (format 1.0, little-endian, C order), so that anyone can load
// normbench's inputs, outputs and reference with numpy.load or torch.from_numpy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/util/atomic_file.hpp"

namespace normbench {

enum class NpyType { float32, float64 };

// The complete header (magic, version, length, dict, padding) for an array.
std::string npy_header(NpyType type, const std::vector<int64_t>& shape);

// Streams one array to `path`: the header now, the data in append() calls, atomically.
class NpyWriter {
 public:
  NpyWriter(const std::string& path, NpyType type, const std::vector<int64_t>& shape);
  void append(const void* data, size_t bytes) { file_.write(data, bytes); }
  void commit() { file_.commit(); }

 private:
  AtomicFile file_;
};

void write_npy(const std::string& path, const float* data, const std::vector<int64_t>& shape);

}  // namespace normbench
