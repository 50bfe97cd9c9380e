// Helpers for tests that need a GPU: they skip with a message where there is none.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

namespace normbench::testing {

// Empty if a CUDA device is usable, else why not.
inline std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) return std::string("no CUDA GPU: ") + cudaGetErrorString(error);
  if (count == 0) return "no CUDA GPU: 0 devices";
  return "";
}

}  // namespace normbench::testing

#define NORMBENCH_SKIP_WITHOUT_GPU()                                                     \
  do {                                                                                   \
    const std::string normbench_reason = ::normbench::testing::gpu_unavailable_reason(); \
    if (!normbench_reason.empty()) GTEST_SKIP() << normbench_reason;                     \
  } while (0)
