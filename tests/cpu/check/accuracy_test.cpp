// Accuracy in units of the rule, on known values: the spacing of bfloat16 and float16, outputs
// rounded once from the reference (0.5 ULP at most, every element exactly rounded), outputs a
// whole ULP off, and the share of the tolerance used.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "app/check/accuracy.hpp"
#include "reference/low_precision.hpp"

namespace normbench {
namespace {

TEST(Accuracy, UlpIsTheSpacingOfTheTypeAtTheReference) {
  EXPECT_EQ(ulp_at(1.0, DType::bfloat16), std::ldexp(1.0, -7));
  EXPECT_EQ(ulp_at(1.99, DType::bfloat16), std::ldexp(1.0, -7));
  EXPECT_EQ(ulp_at(-2.0, DType::bfloat16), std::ldexp(1.0, -6));
  EXPECT_EQ(ulp_at(1.0, DType::float16), std::ldexp(1.0, -10));
  EXPECT_EQ(ulp_at(1000.0, DType::float16), 0.5);
  // Below the least normal value the spacing stays that of the least binade.
  EXPECT_EQ(ulp_at(1e-6, DType::float16), std::ldexp(1.0, -24));
  EXPECT_EQ(ulp_at(0.0, DType::float16), std::ldexp(1.0, -24));
  EXPECT_EQ(ulp_at(0.0, DType::bfloat16), std::ldexp(1.0, -133));
}

TEST(Accuracy, OutputsRoundedOnceAreHalfAnUlpAtMostAndAllExactlyRounded) {
  for (DType dtype : {DType::bfloat16, DType::float16}) {
    const Tolerance tolerance = default_tolerance(dtype);
    AccuracyTally tally(dtype, tolerance);
    std::mt19937_64 random(7);
    std::normal_distribution<double> normal(0.0, 3.0);
    for (int i = 0; i < 100000; ++i) {
      const double ref = normal(random);
      tally.add(round_to_dtype(ref, dtype), ref);
    }
    const OutputAccuracy a = tally.result();
    ASSERT_TRUE(a.ulp);
    EXPECT_LE(a.ulp->max, 0.5) << dtype_name(dtype);
    EXPECT_GT(a.ulp->max, 0.49) << "100000 normal values come close to a tie";
    EXPECT_LE(a.ulp->p999, 0.5);
    EXPECT_EQ(a.ulp->exactly_rounded, 1.0);
    EXPECT_LT(a.tolerance_use, 0.5);  // half an ULP is a quarter of rtol 2u = 1 ULP, or less
  }
}

TEST(Accuracy, AWholeUlpOffIsCountedAndNotExactlyRounded) {
  AccuracyTally tally(DType::bfloat16, default_tolerance(DType::bfloat16));
  const float one_up = bfloat16_value(static_cast<uint16_t>(bfloat16_bits(1.5f) + 1));
  for (int i = 0; i < 999; ++i) tally.add(1.5f, 1.5);  // exact
  tally.add(one_up, 1.5);                              // one ULP above
  const OutputAccuracy a = tally.result();
  ASSERT_TRUE(a.ulp);
  EXPECT_DOUBLE_EQ(a.ulp->max, 1.0);
  EXPECT_DOUBLE_EQ(a.ulp->exactly_rounded, 0.999);
  EXPECT_LE(a.ulp->p999, 1.0 / 16);  // 999 of 1000 are exact: the 99.9th percentile is there
}

TEST(Accuracy, ToleranceUseIsTheWorstShareOfAtolPlusRtolRef) {
  const Tolerance tolerance{1e-5, 1e-5};
  AccuracyTally tally(DType::float32, tolerance);
  tally.add(static_cast<float>(2.0 + 0.5 * 3e-5), 2.0);  // half of 1e-5 + 1e-5 * 2
  tally.add(1.0f, 1.0);
  tally.add(std::nanf(""), 1.0);  // non-finite elements are verification's, not this measure's
  const OutputAccuracy a = tally.result();
  EXPECT_NEAR(a.tolerance_use, 0.5, 1e-3);
  EXPECT_FALSE(a.ulp);  // float32 outputs are not measured in ULPs
}

TEST(Accuracy, TalliesOfPartsMergeToTheWhole) {
  const Tolerance tolerance = default_tolerance(DType::float16);
  AccuracyTally whole(DType::float16, tolerance), first(DType::float16, tolerance),
      second(DType::float16, tolerance);
  for (int i = 0; i < 2000; ++i) {
    const double ref = 0.001 * i - 1.0;
    const float value = round_to_dtype(ref + (i % 7 == 0 ? 0.002 : 0.0), DType::float16);
    whole.add(value, ref);
    (i < 1000 ? first : second).add(value, ref);
  }
  first.merge(second);
  const OutputAccuracy a = whole.result(), b = first.result();
  EXPECT_EQ(a.tolerance_use, b.tolerance_use);
  EXPECT_EQ(a.ulp->max, b.ulp->max);
  EXPECT_EQ(a.ulp->p999, b.ulp->p999);
  EXPECT_EQ(a.ulp->exactly_rounded, b.ulp->exactly_rounded);
}

}  // namespace
}  // namespace normbench
