// The charts' log axes: whole decades around any finite positive data, with few ticks.
#include "app/render/log_axis.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace normbench {
namespace {

TEST(LogAxis, CoversTheDataInWholeDecadesWithOneTwoFiveTicks) {
  const LogAxis axis(3.0, 42.0);
  EXPECT_DOUBLE_EQ(axis.lo(), 1.0);
  EXPECT_DOUBLE_EQ(axis.hi(), 100.0);
  EXPECT_DOUBLE_EQ(axis.fraction(10.0), 0.5);
  const std::vector<double> expected = {1, 2, 5, 10, 20, 50, 100};
  const std::vector<double> ticks = axis.ticks(2);
  ASSERT_EQ(ticks.size(), expected.size());
  for (size_t i = 0; i < ticks.size(); ++i) EXPECT_DOUBLE_EQ(ticks[i], expected[i]);
  EXPECT_EQ(axis.ticks(1).size(), 3u);             // past the fine span: the decades alone
  EXPECT_DOUBLE_EQ(LogAxis(5.0, 5.0).hi(), 10.0);  // at least one decade
}

// A subnormal or a value near DBL_MAX once made an axis end 0 or infinity, and its tick loop
// never ended.
TEST(LogAxis, ExtremeValuesGiveAFiniteAxisAndAFewTicks) {
  const double smallest = std::numeric_limits<double>::denorm_min();
  const double largest = std::numeric_limits<double>::max();
  for (const auto& [lo, hi] :
       {std::pair{smallest, 1.0}, std::pair{1.0, largest}, std::pair{smallest, largest},
        std::pair{largest, largest}, std::pair{smallest, smallest}}) {
    const LogAxis axis(lo, hi);
    EXPECT_GT(axis.lo(), 0.0) << lo << " " << hi;
    EXPECT_TRUE(std::isfinite(axis.hi())) << lo << " " << hi;
    EXPECT_LT(axis.lo(), axis.hi()) << lo << " " << hi;
    const std::vector<double> ticks = axis.ticks(3);
    EXPECT_GE(ticks.size(), 2u) << lo << " " << hi;
    EXPECT_LE(ticks.size(), 13u) << lo << " " << hi;
    for (double t : ticks) {
      EXPECT_TRUE(std::isfinite(t) && t > 0.0) << t;
      EXPECT_TRUE(std::isfinite(axis.fraction(t))) << t;
    }
  }
}

}  // namespace
}  // namespace normbench
