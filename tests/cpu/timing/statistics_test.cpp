// Timing statistics and the rule that decides when to stop sampling.
#include "app/timing/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace normbench {
namespace {

TEST(Statistics, Median) {
  EXPECT_EQ(median({}), 0.0);
  EXPECT_EQ(median({7.5}), 7.5);
  EXPECT_EQ(median({3, 1, 2}), 2.0);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);  // between the middle two
  EXPECT_EQ(median({10, 1, 1, 10}), 5.5);
  EXPECT_EQ(median({5, 9, 1, 7, 3, 100}), 6.0);  // unsorted, even: (5 + 7) / 2
  EXPECT_EQ(median({2, 2, 2, 1000}), 2.0);
}

TEST(Statistics, SummarizeSampleStdev) {
  // The textbook set: mean 5, squared deviations sum to 32, sample stdev sqrt(32 / 7).
  const SampleSummary s = summarize({9, 2, 5, 4, 4, 7, 5, 4});
  EXPECT_EQ(s.count, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.stdev, 2.138089935299395);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_EQ(s.min, 2.0);
  EXPECT_EQ(s.max, 9.0);
  EXPECT_DOUBLE_EQ(s.relative_stdev(), 2.138089935299395 / 5.0);
}

TEST(Statistics, SummarizeSmallSets) {
  const SampleSummary empty = summarize({});
  EXPECT_EQ(empty.count, 0u);
  EXPECT_EQ(empty.relative_stdev(), 0.0);
  const SampleSummary one = summarize({3.25});
  EXPECT_EQ(one.count, 1u);
  EXPECT_EQ(one.stdev, 0.0);  // undefined for one sample: reported as 0
  EXPECT_EQ(one.median, 3.25);
  EXPECT_EQ(one.min, 3.25);
  EXPECT_EQ(one.max, 3.25);
  const SampleSummary two = summarize({1.0, 3.0});  // stdev sqrt(2), not 1
  EXPECT_DOUBLE_EQ(two.stdev, std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(two.relative_stdev(), std::sqrt(2.0) / 2.0);
}

// A report may hold any finite time; the same set scaled to near DBL_MAX keeps its statistics.
TEST(Statistics, SummarizeSamplesNearTheLargestDouble) {
  const double big = 1.5e307;
  const SampleSummary s =
      summarize({9 * big, 2 * big, 5 * big, 4 * big, 4 * big, 7 * big, 5 * big, 4 * big});
  EXPECT_DOUBLE_EQ(s.mean, 5.0 * big);
  EXPECT_DOUBLE_EQ(s.stdev, 2.138089935299395 * big);
  EXPECT_DOUBLE_EQ(s.relative_stdev(), 2.138089935299395 / 5.0);
}

TimingSettings settings(int min_samples, double max_noise, double max_time_s) {
  TimingSettings t;
  t.min_samples = min_samples;
  t.max_noise = max_noise;
  t.max_time_s = max_time_s;
  return t;
}

TEST(Statistics, KeepSamplingBelowMinSamplesEvenIfConverged) {
  const TimingSettings t = settings(5, 0.01, 1.0);
  EXPECT_EQ(stop_reason({}, 0.0, t), StopReason::keep_sampling);
  EXPECT_EQ(stop_reason({1, 1, 1, 1}, 0.0, t), StopReason::keep_sampling);
  EXPECT_EQ(stop_reason({1, 1, 1, 1}, 100.0, t), StopReason::keep_sampling);  // past the time too
  EXPECT_EQ(stop_reason({1, 1, 1, 1, 1}, 0.0, t), StopReason::converged);
}

TEST(Statistics, MedianIntervalUsesOrderStatistics) {
  // n = 10: ranks floor(5 - 3.10) = 1 and ceil(6 + 3.10) = 10: the whole range.
  std::vector<double> ten = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
  MedianInterval i = median_interval(ten);
  EXPECT_EQ(i.low, 1.0);
  EXPECT_EQ(i.high, 10.0);
  // n = 100: ranks floor(50 - 9.80) = 40 and ceil(51 + 9.80) = 61.
  std::vector<double> hundred;
  for (int v = 100; v >= 1; --v) hundred.push_back(v);
  i = median_interval(hundred);
  EXPECT_EQ(i.low, 40.0);
  EXPECT_EQ(i.high, 61.0);
  EXPECT_NEAR(relative_half_width(i, 50.5), 10.5 / 50.5, 1e-12);
  EXPECT_EQ(median_interval({}).low, 0.0);
  EXPECT_EQ(median_interval({3.0}).high, 3.0);
}

TEST(Statistics, ConvergedWhenTheMedianIntervalIsWithinMaxNoise) {
  // Ten samples: the interval is [min, max]; 1.00 +- 0.4% converges at 0.5%, not at 0.3%.
  const std::vector<double> tight = {0.996, 0.998, 0.999, 1.0, 1.0, 1.0, 1.0, 1.001, 1.002, 1.004};
  EXPECT_EQ(stop_reason(tight, 0.0, settings(10, 0.005, 10.0)), StopReason::converged);
  EXPECT_EQ(stop_reason(tight, 0.0, settings(10, 0.003, 10.0)), StopReason::keep_sampling);
  // Outliers move the stdev, not the median's interval once there are enough samples: 200
  // samples at 1.0 +- 0.1% with 10% of them at 1.4 converge; their relative stdev is 12%.
  std::vector<double> outliers;
  for (int k = 0; k < 200; ++k) outliers.push_back(k % 10 == 0 ? 1.4 : 1.0 + 0.001 * ((k % 3) - 1));
  EXPECT_EQ(stop_reason(outliers, 0.0, settings(10, 0.005, 10.0)), StopReason::converged);
}

TEST(Statistics, TimeLimitWhenNoisyAndOutOfTime) {
  const TimingSettings t = settings(3, 0.01, 2.0);
  const std::vector<double> noisy = {1, 2, 1, 2, 1};  // interval [1, 2] around 1
  EXPECT_EQ(stop_reason(noisy, 0.5, t), StopReason::keep_sampling);
  EXPECT_EQ(stop_reason(noisy, 1.999, t), StopReason::keep_sampling);
  EXPECT_EQ(stop_reason(noisy, 2.0, t), StopReason::time_limit);
  EXPECT_EQ(stop_reason(noisy, 30.0, t), StopReason::time_limit);
  // Converged wins over the time limit.
  EXPECT_EQ(stop_reason({1, 1, 1}, 30.0, t), StopReason::converged);
}

TEST(Statistics, StopReasonNames) {
  EXPECT_EQ(std::string(to_string(StopReason::keep_sampling)), "keep_sampling");
  EXPECT_EQ(std::string(to_string(StopReason::converged)), "converged");
  EXPECT_EQ(std::string(to_string(StopReason::time_limit)), "time_limit");
}

}  // namespace
}  // namespace normbench
