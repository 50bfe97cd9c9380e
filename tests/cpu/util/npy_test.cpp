// NumPy .npy files: the header byte for byte as numpy.save writes it, and whole files.
#include "app/util/npy.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

// Magic, version 1.0, little-endian header length 118, then the dict padded with spaces to
// 128 bytes in all and ended by '\n': what numpy 2.4's np.save writes for these shapes.
std::string numpy_header(const std::string& dict) {
  std::string header("\x93NUMPY\x01\x00\x76\x00", 10);
  header += dict;
  header.append(127 - header.size(), ' ');
  return header + "\n";
}

size_t header_length_field(const std::string& header) {
  return static_cast<unsigned char>(header[8]) | static_cast<unsigned char>(header[9]) << 8;
}

TEST(Npy, HeaderMatchesNumpy) {
  EXPECT_EQ(npy_header(NpyType::float32, {}),
            numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (), }"));
  EXPECT_EQ(npy_header(NpyType::float32, {3}),
            numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"));
  EXPECT_EQ(npy_header(NpyType::float32, {2, 3}),
            numpy_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"));
  EXPECT_EQ(npy_header(NpyType::float64, {2, 3}),
            numpy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"));
}

TEST(Npy, HeaderLengthIsAMultipleOf64) {
  const std::vector<std::vector<int64_t>> shapes = {
      {},
      {1},
      {16, 64, 256, 256},
      {112, 64, 512, 512},
      // Long enough to need a second 64-byte block of padding.
      {1000000000, 1000000000, 1000000000, 1000000000, 1000000000, 1000000000}};
  for (const auto& shape : shapes) {
    const std::string header = npy_header(NpyType::float64, shape);
    SCOPED_TRACE(header);
    EXPECT_EQ(header.size() % 64, 0u);
    EXPECT_EQ(header.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    EXPECT_EQ(header_length_field(header), header.size() - 10);
    EXPECT_EQ(header.back(), '\n');
    EXPECT_NE(header.find("'descr': '<f8'"), std::string::npos);
  }
  EXPECT_EQ(npy_header(NpyType::float64, shapes.back()).size(), 192u);
  EXPECT_NE(npy_header(NpyType::float32, {16, 64, 256, 256}).find("'shape': (16, 64, 256, 256), }"),
            std::string::npos);
}

TEST(Npy, WriteNpyIsHeaderThenRawData) {
  testing::TempDir dir;
  const std::string path = dir.file("tensors/x.npy");
  const std::vector<float> data = {1.5f, -2.0f, 0.0f, 3.25f, 1e-30f, -0.0f};
  write_npy(path, data.data(), {2, 3});
  const std::string file = testing::read_text(path);
  const std::string header = npy_header(NpyType::float32, {2, 3});
  ASSERT_EQ(std::filesystem::file_size(path), header.size() + 6 * sizeof(float));
  EXPECT_EQ(file.substr(0, header.size()), header);
  EXPECT_EQ(std::memcmp(file.data() + header.size(), data.data(), 6 * sizeof(float)), 0);
  EXPECT_EQ(dir.entries().size(), 2u);  // the folder and the file, no temporary
}

TEST(Npy, WriterStreamsFloat64InPieces) {
  testing::TempDir dir;
  const std::string path = dir.file("reference.npy");
  const std::vector<double> values = {0.1, 0.2, 0.3, 0.4, 0.5};
  NpyWriter writer(path, NpyType::float64, {5});
  writer.append(values.data(), 2 * sizeof(double));
  writer.append(values.data() + 2, 3 * sizeof(double));
  EXPECT_FALSE(std::filesystem::exists(path));  // only on commit
  writer.commit();
  const std::string file = testing::read_text(path);
  ASSERT_EQ(file.size(), 128 + 5 * sizeof(double));
  EXPECT_EQ(std::memcmp(file.data() + 128, values.data(), 5 * sizeof(double)), 0);
}

}  // namespace
}  // namespace normbench
