#include "app/timing/statistics.hpp"

#include <algorithm>
#include <cmath>

namespace normbench {

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<long>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<long>(mid));
  return lower + 0.5 * (upper - lower);  // (lower + upper) / 2 overflows near DBL_MAX
}

SampleSummary summarize(std::vector<double> samples) {
  SampleSummary s;
  s.count = samples.size();
  if (samples.empty()) return s;
  s.min = *std::min_element(samples.begin(), samples.end());
  s.max = *std::max_element(samples.begin(), samples.end());
  const double n = static_cast<double>(s.count);
  const auto mean_and_stdev = [&](double scale) {  // of samples / scale, times scale
    double sum = 0.0;
    for (double v : samples) sum += v / scale;
    const double mean = sum / n;
    double ss = 0.0;
    for (double v : samples) ss += (v / scale - mean) * (v / scale - mean);
    s.mean = mean * scale;
    s.stdev = s.count > 1 ? std::sqrt(ss / (n - 1.0)) * scale : 0.0;
  };
  mean_and_stdev(1.0);
  // A report may hold any finite time: near DBL_MAX the sums overflow, so they are taken again
  // scaled by the largest magnitude.
  const double largest = std::max(std::fabs(s.min), std::fabs(s.max));
  if ((!std::isfinite(s.mean) || !std::isfinite(s.stdev)) && largest > 0.0) mean_and_stdev(largest);
  s.median = median(std::move(samples));
  return s;
}

MedianInterval median_interval(std::vector<double> samples) {
  if (samples.empty()) return {};
  std::sort(samples.begin(), samples.end());
  const double n = static_cast<double>(samples.size());
  const double reach = 1.959963984540054 * std::sqrt(n) / 2.0;
  // 1-based ranks, rounded outwards, clamped to [1, n].
  const auto low_rank = static_cast<size_t>(std::max(1.0, std::floor(n / 2.0 - reach)));
  const auto high_rank = static_cast<size_t>(std::min(n, std::ceil(n / 2.0 + 1.0 + reach)));
  return {samples[low_rank - 1], samples[high_rank - 1]};
}

double relative_half_width(const MedianInterval& interval, double median) {
  if (median <= 0.0) return 0.0;
  return std::max(median - interval.low, interval.high - median) / median;
}

StopReason stop_reason(const std::vector<double>& samples, double elapsed_s,
                       const TimingSettings& settings) {
  const size_t n = samples.size();
  if (n < static_cast<size_t>(settings.min_samples)) return StopReason::keep_sampling;
  // The interval needs a sort: after every sample up to 256, then every 64th, so that a kernel
  // of microseconds sampled for seconds does not spend them sorting.
  const bool check = n <= 256 || n % 64 == 0;
  if (check && relative_half_width(median_interval(samples), median(samples)) <= settings.max_noise)
    return StopReason::converged;
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
