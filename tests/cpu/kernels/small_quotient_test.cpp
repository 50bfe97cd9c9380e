#include "kernels/device/small_quotient.hpp"

#include <gtest/gtest.h>

namespace normbench::kernels {
namespace {

// Every dividend and divisor the kernels pass (threads and channels of a chunk: below 2^12).
TEST(SmallQuotient, EqualsTheIntegerQuotientForEverySmallDividendAndDivisor) {
  int wrong = 0;
  for (int d = 1; d <= 4096; ++d) {
    const float inverse = small_quotient_inverse(d);
    for (int n = 0; n < 4096; ++n) wrong += small_quotient(n, inverse) != n / d;
  }
  EXPECT_EQ(wrong, 0);
}

// The top of the range, where the rounding error is largest: the last four quotients of every
// divisor below kSmallQuotientDividends.
TEST(SmallQuotient, EqualsTheIntegerQuotientUpToItsLargestDividend) {
  int wrong = 0;
  for (int d = 1; d <= 4096; ++d) {
    const float inverse = small_quotient_inverse(d);
    for (int n = kSmallQuotientDividends - 4 * d; n < kSmallQuotientDividends; ++n)
      wrong += small_quotient(n, inverse) != n / d;
  }
  EXPECT_EQ(wrong, 0);
}

// Why the half and the fusion: the plain product of the inverse is wrong already for small
// values, so the tests above can tell.
TEST(SmallQuotient, ThePlainProductOfTheInverseIsNotExact) {
  int wrong = 0;
  for (int d = 1; d <= 4096; ++d)
    for (int n = 0; n < 4096; ++n)
      wrong += static_cast<int>(static_cast<float>(n) * small_quotient_inverse(d)) != n / d;
  EXPECT_GT(wrong, 0);
}

}  // namespace
}  // namespace normbench::kernels
