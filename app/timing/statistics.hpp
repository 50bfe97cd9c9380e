// Summary statistics of timing samples and the rule that decides when to stop sampling.
#pragma once

#include <cstddef>
#include <vector>

#include "app/config/config.hpp"

namespace normbench {

struct SampleSummary {
  size_t count = 0;
  double median = 0.0;
  double mean = 0.0;
  double stdev = 0.0;  // sample standard deviation (n - 1); 0 for fewer than two samples
  double min = 0.0;
  double max = 0.0;
  double relative_stdev() const { return mean > 0.0 ? stdev / mean : 0.0; }
};

SampleSummary summarize(std::vector<double> samples);

// The median of the values (interpolating between the middle two for an even count).
double median(std::vector<double> values);

// A distribution-free 95% confidence interval of the median: the order statistics of ranks
// n/2 -+ 1.96 sqrt(n)/2 (the binomial's normal approximation, rounded outwards). With fewer than
// 2 samples, [min, max].
struct MedianInterval {
  double low = 0.0;
  double high = 0.0;
};
MedianInterval median_interval(std::vector<double> samples);

// How far the interval reaches from the median, relative to it: max(m - low, high - m) / m.
double relative_half_width(const MedianInterval& interval, double median);

enum class StopReason { keep_sampling, converged, time_limit };

// Never fewer than min_samples; then stop once the 95% confidence interval of the median lies
// within +-max_noise of it (converged), or sampling has taken max_time_s (time_limit). The
// median, not the mean, is what normbench reports: a few slow outliers (preemption, clocks)
// move the stdev a lot and the median's interval little, so short kernels converge too.
StopReason stop_reason(const std::vector<double>& samples, double elapsed_s,
                       const TimingSettings& settings);

const char* to_string(StopReason reason);

}  // namespace normbench
