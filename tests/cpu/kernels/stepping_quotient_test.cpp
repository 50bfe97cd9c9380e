#include "kernels/device/small_quotient.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace normbench::kernels {
namespace {

// Walks `steps` strides from `offset` and counts the quotients and remainders that differ from
// the division's.
int mismatches(uint32_t offset, uint32_t stride, uint32_t divisor, int steps) {
  SteppingQuotient q(offset, stride, divisor);
  int wrong = 0;
  for (int i = 0; i < steps; ++i, offset += stride, q.advance())
    wrong += q.quotient != offset / divisor || q.remainder != offset % divisor;
  return wrong;
}

// grid_tiles' strides (512 threads x 1, 4 or 8 elements) and odd ones, over the divisors of the
// spatial sizes that matter (1, odd, powers of two, larger than the stride).
TEST(SteppingQuotient, EqualsTheDivisionAtEveryStep) {
  int wrong = 0;
  for (uint32_t stride : {1u, 7u, 512u, 2048u, 4096u, 100003u})
    for (uint32_t divisor = 1; divisor <= 600; ++divisor)
      for (uint32_t offset : {0u, 1u, divisor - 1, 12345u})
        wrong += mismatches(offset, stride, divisor, 300);
  for (uint32_t divisor : {4096u, 65536u, 262144u, 1000003u, (1u << 30) + 7u})
    wrong += mismatches(3, 4096, divisor, 2000);
  EXPECT_EQ(wrong, 0);
}

// Near the top of its range: offsets up to 3 x 2^30, a divisor just under 2^31 and one just over
// 2^30.
TEST(SteppingQuotient, EqualsTheDivisionNearTheTopOfItsRange) {
  const uint32_t divisor = (1u << 31) - 1;
  EXPECT_EQ(mismatches(0, divisor - 5, divisor, 2), 0);
  EXPECT_EQ(mismatches(0, 1u << 30, divisor, 4), 0);
  EXPECT_EQ(mismatches(4096, (1u << 30) - 3, (1u << 30) + 11, 3), 0);
}

}  // namespace
}  // namespace normbench::kernels
