// Golden values of the input generator (app/inputs/inputs.cpp): a change of the inputs every
// committed report was made on shows here first.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "app/inputs/inputs.hpp"

namespace normbench {
namespace {

uint32_t bits_of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

std::vector<uint32_t> first_bits(const Distribution& d, uint64_t seed, const char* name,
                                 int64_t first, int64_t n = 6) {
  std::vector<float> out(static_cast<size_t>(n));
  generate(d, tensor_stream_key(seed, name), first, n, out.data());
  std::vector<uint32_t> bits;
  for (float v : out) bits.push_back(bits_of(v));
  return bits;
}

// sum over i of bits(v[i]) * (2i + 1), wrapping: changes with any bit of any element.
uint64_t checksum(const std::vector<float>& v) {
  uint64_t s = 0;
  for (size_t i = 0; i < v.size(); ++i) s += uint64_t{bits_of(v[i])} * (2 * uint64_t{i} + 1);
  return s;
}

std::vector<float> values(const Distribution& d, uint64_t seed, const char* name, int64_t first,
                          int64_t n) {
  std::vector<float> out(static_cast<size_t>(n));
  generate(d, tensor_stream_key(seed, name), first, n, out.data());
  return out;
}

TEST(InputsGolden, StreamKeys) {
  EXPECT_EQ(tensor_stream_key(42, "x"), 0x2e76ecd0d54d0d0eull);
  EXPECT_EQ(tensor_stream_key(43, "x"), 0x1b1c62da88ccf541ull);
  EXPECT_EQ(tensor_stream_key(42, "weight"), 0x5a987eb9933b6c04ull);
  EXPECT_EQ(tensor_stream_key(42, "bias"), 0x01f1975e2050c657ull);
}

TEST(InputsGolden, FirstValuesOfEachDistribution) {
  using V = std::vector<uint32_t>;
  // 0.82747227, 0.0589315891, 0.610068798, ...
  EXPECT_EQ(first_bits(Distribution::uniform(), 42, "x", 0),
            (V{0x3f53d539, 0x3d716240, 0x3f1c2d78, 0x3efa3444, 0x3f58e9f1, 0x3ef5acba}));
  EXPECT_EQ(first_bits(Distribution::uniform(), 43, "x", 0),
            (V{0x3e35fc84, 0x3f07cc74, 0x3f5350d7, 0x3f6b1a5f, 0x3f7e3029, 0x3f345e7f}));
  EXPECT_EQ(first_bits(Distribution::uniform(-2.0, 3.0), 42, "x", 0),
            (V{0x4008ca87, 0xbfda48a6, 0x3f8671ac, 0x3ee30554, 0x400f246d, 0x3ecc5fa2}));
  // 0.0842797011, -0.795999229, ...
  EXPECT_EQ(first_bits(Distribution::normal(), 42, "weight", 0),
            (V{0x3dac9ad6, 0xbf4bc69b, 0xbf05110d, 0xbf3e30ad, 0x3f14cf5b, 0xbd65d6da}));
  EXPECT_EQ(first_bits(Distribution::normal(), 42, "bias", 0),
            (V{0xbebf784d, 0xbf96fc64, 0x3eb213bf, 0x400634aa, 0x3f720fa1, 0x3edc06eb}));
  EXPECT_EQ(first_bits(Distribution::normal(1000.0, 1.0), 7, "x", 0),
            (V{0x4479d5de, 0x447a0e32, 0x44799f70, 0x4479ddc1, 0x447a165d, 0x44796c11}));
  EXPECT_EQ(first_bits(Distribution::constant(-7.3), 42, "x", 0), V(6, 0xc0e9999a));
  // Far into problem B's 1.9e9 elements: 64-bit counters.
  EXPECT_EQ(first_bits(Distribution::uniform(), 42, "x", 1900000000),
            (V{0x3f400392, 0x3e973bc0, 0x3ece15ec, 0x3ed289b2, 0x3f7a7c30, 0x3f28a708}));
  EXPECT_EQ(first_bits(Distribution::normal(), 42, "x", 1900000000),
            (V{0x3f697933, 0xc0137033, 0x3f4f8c7f, 0xbe8239d7, 0xbe9be606, 0xbfc2b711}));
}

TEST(InputsGolden, Checksums) {
  EXPECT_EQ(checksum(values(Distribution::uniform(), 42, "x", 0, 1 << 20)), 0xbfec7388fff8e82aull);
  EXPECT_EQ(checksum(values(Distribution::uniform(-2.0, 3.0), 42, "x", 0, 1 << 16)),
            0x72e7076353305df6ull);
  EXPECT_EQ(checksum(values(Distribution::uniform(), 44, "x", (int64_t{1} << 31) - 100, 1 << 16)),
            0x3ec074032a99319cull);
  const auto normal = values(Distribution::normal(), 42, "weight", 0, 1 << 16);
  double sum = 0.0, sum_sq = 0.0;
  for (float v : normal) {
    sum += v;
    sum_sq += static_cast<double>(v) * v;
  }
  // Normal values may differ in the last bit between libms: compare sums, not bits.
  EXPECT_NEAR(sum, 119.72936167498347, 1e-9);
  EXPECT_NEAR(sum_sq, 65568.600662836106, 1e-7);
}

}  // namespace
}  // namespace normbench
