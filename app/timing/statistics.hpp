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

enum class StopReason { keep_sampling, converged, time_limit };

// nvbench's rule: never fewer than min_samples; then stop once the relative stdev is at most
// max_noise (converged) or sampling has taken max_time_s (time_limit).
StopReason stop_reason(const std::vector<double>& samples, double elapsed_s,
                       const TimingSettings& settings);

const char* to_string(StopReason reason);

}  // namespace normbench
