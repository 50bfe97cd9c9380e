// What timing a launch found: its samples and their statistics, how long the device stayed busy
// after each, and the GPU's conditions around them; and the copy bandwidth and the latency floor
// measured the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "app/timing/measurement_conditions.hpp"
#include "app/timing/statistics.hpp"

namespace normbench {

struct TimingResult {
  SampleSummary summary;           // of samples_ms
  MedianInterval median_interval;  // 95% confidence interval of the median
  std::vector<double> samples_ms;  // one launch each, in order
  StopReason stop = StopReason::converged;
  double sampling_time_s = 0.0;  // wall time spent taking samples
  // Per sample: how long the whole device still had work once the timed stream had finished
  // (microseconds). Work a kernel left on a stream of its own shows up here.
  std::vector<double> escaped_us;
  // The GPU's clocks, temperature, power and throttling around the samples; empty where NVML
  // was unavailable.
  std::optional<SamplingConditions> conditions;
};

struct CopyBandwidth {
  uint64_t bytes_moved = 0;  // read plus written per copy
  TimingResult timing;
  double gb_per_s = 0.0;  // bytes_moved / median, 1 GB = 1e9 bytes
};

// The shortest launches, timed as kernels are: what no kernel goes below however few its bytes.
struct LatencyFloor {
  uint64_t bytes_moved = 0;   // by the cache-line kernel, read plus written
  TimingResult empty_launch;  // one block that does nothing, L2 evicted before each sample
  TimingResult cold;          // the cache-line kernel, L2 evicted before each sample
  TimingResult warm;          // the same with L2 kept: its lines stay there from the last sample
};

}  // namespace normbench
