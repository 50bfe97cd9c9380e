#include "app/timing/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace normbench {

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<long>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<long>(mid));
  return 0.5 * (lower + upper);
}

SampleSummary summarize(std::vector<double> samples) {
  SampleSummary s;
  s.count = samples.size();
  if (samples.empty()) return s;
  s.min = *std::min_element(samples.begin(), samples.end());
  s.max = *std::max_element(samples.begin(), samples.end());
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.count);
  if (s.count > 1) {
    double ss = 0.0;
    for (double v : samples) ss += (v - s.mean) * (v - s.mean);
    s.stdev = std::sqrt(ss / static_cast<double>(s.count - 1));
  }
  s.median = median(std::move(samples));
  return s;
}

StopReason stop_reason(const std::vector<double>& samples, double elapsed_s,
                       const TimingSettings& settings) {
  if (samples.size() < static_cast<size_t>(settings.min_samples)) return StopReason::keep_sampling;
  // Mean and stdev only (no copy, no sort): this runs after every sample.
  const double n = static_cast<double>(samples.size());
  const double mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  double ss = 0.0;
  for (double v : samples) ss += (v - mean) * (v - mean);
  const double rel_stdev = n > 1 && mean > 0.0 ? std::sqrt(ss / (n - 1)) / mean : 0.0;
  if (rel_stdev <= settings.max_noise) return StopReason::converged;
  if (elapsed_s >= settings.max_time_s) return StopReason::time_limit;
  return StopReason::keep_sampling;
}

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::keep_sampling:
      return "keep_sampling";
    case StopReason::converged:
      return "converged";
    case StopReason::time_limit:
      return "time_limit";
  }
  return "";
}

}  // namespace normbench
