// A CUDA event that destroys itself: the timing events around a launch.
#pragma once

#include <cuda_runtime_api.h>

#include "app/device/cuda_check.hpp"

namespace normbench {

class CudaEvent {
 public:
  CudaEvent() { NORMBENCH_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~CudaEvent() { cudaEventDestroy(event_); }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace normbench
