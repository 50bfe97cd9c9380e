// Timing launches with CUDA events: warm-up launches first, L2 evicted before each sample
// (optional), samples until the stopping rule of statistics.hpp says enough.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

#include "app/config/config.hpp"
#include "app/device/device_buffer.hpp"
#include "app/results/run_result.hpp"

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

// `launch` enqueues one run of the work on `stream` and returns its launch error. Throws
// KernelLaunchError if a launch is refused and RuntimeError if the device fails.
TimingResult time_launches(const std::function<cudaError_t()>& launch,
                           const TimingSettings& settings, const L2Evictor* evictor,
                           cudaStream_t stream);

}  // namespace normbench
