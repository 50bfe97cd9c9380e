// Host rounding to bfloat16 and float16 (reference/low_precision.hpp): hand-picked ties,
// subnormals and overflows, every bit pattern round-tripped, and random floats against the
// nearest representable value found by search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "reference/low_precision.hpp"

namespace normbench {
namespace {

float bf16(double v) {
  return round_to_dtype(v, DType::bfloat16);
}
float fp16(double v) {
  return round_to_dtype(v, DType::float16);
}

TEST(LowPrecision, BFloat16TiesGoToEven) {
  EXPECT_EQ(bf16(1.0), 1.0f);
  EXPECT_EQ(bf16(1.0 + 0x1p-8), 1.0f);                      // tie: 1 has the even mantissa
  EXPECT_EQ(bf16(1.0 + 3 * 0x1p-8), 1.0f + 0x1p-6f);        // tie: up to the even one
  EXPECT_EQ(bf16(1.0 + 0x1p-8 + 0x1p-20), 1.0f + 0x1p-7f);  // past the tie
  EXPECT_EQ(bf16(-(1.0 + 0x1p-8 + 0x1p-20)), -(1.0f + 0x1p-7f));
  EXPECT_EQ(bf16(1000.7), 1000.0f);      // spacing 4 at 1000
  EXPECT_EQ(bf16(1002.0), 1000.0f);      // tie between 1000 (even) and 1004
  EXPECT_EQ(bf16(0x1p-133), 0x1p-133f);  // the smallest subnormal
}

TEST(LowPrecision, BFloat16OverflowsToInfinity) {
  EXPECT_TRUE(std::isinf(bf16(std::numeric_limits<float>::max())));
  EXPECT_EQ(bf16(3.3895313892515355e38), 3.3895313892515355e38f);  // the largest bfloat16
  EXPECT_TRUE(std::isnan(bf16(std::nan(""))));
}

TEST(LowPrecision, Float16TiesSubnormalsAndOverflow) {
  EXPECT_EQ(fp16(1.0 + 0x1p-11), 1.0f);                // tie to even
  EXPECT_EQ(fp16(1.0 + 3 * 0x1p-11), 1.0f + 0x1p-9f);  // tie to even, upwards
  EXPECT_EQ(fp16(65504.0), 65504.0f);
  EXPECT_EQ(fp16(65519.0), 65504.0f);
  EXPECT_TRUE(std::isinf(fp16(65520.0)));  // the tie with 65536 rounds past the largest
  EXPECT_TRUE(std::isinf(fp16(-1e6)) && fp16(-1e6) < 0);
  EXPECT_EQ(fp16(0x1p-24), 0x1p-24f);            // the smallest subnormal
  EXPECT_EQ(fp16(0x1p-25), 0.0f);                // tie between 0 (even) and 2^-24
  EXPECT_EQ(fp16(1.5 * 0x1p-25), 0x1p-24f);      // past it
  EXPECT_EQ(fp16(3 * 0x1p-25), 2 * 0x1p-24f);    // tie between 1 and 2 units: even
  EXPECT_EQ(fp16(0x1p-14 + 0x1p-25), 0x1p-14f);  // normal range above a subnormal step
}

TEST(LowPrecision, BitPatterns) {
  EXPECT_EQ(float16_bits(1.0f), 0x3c00);
  EXPECT_EQ(float16_bits(-2.0f), 0xc000);
  EXPECT_EQ(float16_bits(65504.0f), 0x7bff);
  EXPECT_EQ(float16_bits(0x1p-24f), 0x0001);
  EXPECT_EQ(float16_bits(0x1p-14f), 0x0400);
  EXPECT_EQ(float16_bits(INFINITY), 0x7c00);
  EXPECT_EQ(float16_bits(-0.0f), 0x8000);
  EXPECT_EQ(bfloat16_bits(1.0f), 0x3f80);
  EXPECT_EQ(bfloat16_bits(-2.0f), 0xc000);
  EXPECT_TRUE(std::isnan(bfloat16_value(bfloat16_bits(std::nanf("")))));
  EXPECT_TRUE(std::isnan(float16_value(float16_bits(std::nanf("")))));
}

TEST(LowPrecision, EveryBitPatternRoundTrips) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const auto bits = static_cast<uint16_t>(b);
    const float h = float16_value(bits);
    const float g = bfloat16_value(bits);
    if (!std::isnan(h)) {
      ASSERT_EQ(float16_bits(h), bits) << std::hex << b;
      ASSERT_EQ(fp16(h), h) << std::hex << b;  // representable values stay
    }
    if (!std::isnan(g)) {
      ASSERT_EQ(bfloat16_bits(g), bits) << std::hex << b;
      ASSERT_EQ(bf16(g), g) << std::hex << b;
    }
  }
}

// The representable value nearest to v among `sorted` (finite, ascending), ties to the one with
// the even bit pattern.
float nearest(const std::vector<std::pair<float, uint16_t>>& sorted, float v) {
  auto above = std::lower_bound(sorted.begin(), sorted.end(), std::make_pair(v, uint16_t{0}));
  if (above == sorted.begin()) return above->first;
  auto below = std::prev(above);
  if (above == sorted.end()) return below->first;
  const double down = static_cast<double>(v) - below->first;
  const double up = static_cast<double>(above->first) - v;
  if (down < up) return below->first;
  if (up < down) return above->first;
  return (below->second & 1) == 0 ? below->first : above->first;
}

TEST(LowPrecision, RandomFloatsRoundToTheNearestValue) {
  for (DType dtype : {DType::bfloat16, DType::float16}) {
    std::vector<std::pair<float, uint16_t>> values;
    for (uint32_t b = 0; b < 0x10000; ++b) {
      const auto bits = static_cast<uint16_t>(b);
      const float v = dtype == DType::float16 ? float16_value(bits) : bfloat16_value(bits);
      if (std::isfinite(v) && !(v == 0.0f && std::signbit(v))) values.push_back({v, bits});
    }
    std::sort(values.begin(), values.end());
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> mantissa(-2.0f, 2.0f);
    // float16 below 2^15: larger values may round to infinity, which `nearest` does not model.
    std::uniform_int_distribution<int> exponent(dtype == DType::float16 ? -26 : -30, 14);
    for (int i = 0; i < 200000; ++i) {
      const float v = std::ldexp(mantissa(rng), exponent(rng));
      ASSERT_EQ(round_to_dtype(v, dtype), nearest(values, v)) << dtype_name(dtype) << " " << v;
    }
  }
}

}  // namespace
}  // namespace normbench
