// Timing launches with CUDA events: warm-up launches first, L2 evicted before each sample
// (optional), samples until the stopping rule of statistics.hpp says enough.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

#include "app/config/config.hpp"
#include "app/device/device_buffer.hpp"
#include "app/timing/timing_result.hpp"

namespace normbench {

class L2Evictor {
 public:
  // A buffer of twice the L2 size, zeroed.
  L2Evictor(size_t l2_bytes, cudaStream_t stream);
  cudaError_t evict(cudaStream_t stream) const;

 private:
  DeviceBuffer buffer_;
  DeviceBuffer sink_;
};

// What the harness does around each timed sample, outside its timed region.
struct SampleHooks {
  // Enqueued before the sample's eviction: poisons the output, so that a launch that does no
  // work leaves poison behind.
  std::function<cudaError_t(size_t sample)> before;
  // Called once after the warm-up launches.
  std::function<void()> after_warmup;
  // Called once the sample and every other stream of the device finished: checks its output
  // (and accounts for the records of the activity trace, the warm-up launches' with the first).
  std::function<void(size_t sample)> after;
  // Enqueued after every launch's end record, warm-ups included (KernelPlan::finish).
  std::function<cudaError_t()> after_launch;
  // The GPU is held at least this long before each sample's start record (KernelPlan::hold_us).
  double hold_us = 0.0;
};

// One launch between two event records on `stream` (`start` and `stop`, which time it), the
// three calls marked as launch `serial`'s for the activity trace (app/device/activity_trace.hpp).
// Returns the launch's error.
cudaError_t traced_launch(const std::function<cudaError_t()>& launch, uint64_t serial,
                          cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop);

// `launch` enqueues one run of the work on `stream` and returns its launch error; every launch,
// warm-up ones included, is a traced_launch. Each sample
// also measures how long the device stays busy after `stream` finished (escaped_us). Throws
// KernelLaunchError if a launch is refused and RuntimeError if the device fails.
TimingResult time_launches(const std::function<cudaError_t()>& launch,
                           const TimingSettings& settings, const L2Evictor* evictor,
                           cudaStream_t stream, const SampleHooks& hooks = {});

// Waits for `stream`, then for the whole device; returns how long the second wait took in
// microseconds: the time work outside `stream` still needed.
double drain_after(cudaStream_t stream);

}  // namespace normbench
