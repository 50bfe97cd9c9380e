// Turning CUDA runtime errors of the harness itself into exceptions with a clear message.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "app/util/errors.hpp"

namespace normbench {

// A kernel's launch was refused (bad configuration, too many resources): the kernel is
// reported as `error`, the run goes on.
struct KernelLaunchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline std::string cuda_error_text(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
}

// Throws RuntimeError (exit 3) naming the failed call and where it is in normbench's source.
inline void cuda_check(cudaError_t error, const char* call, const char* file, int line) {
  if (error != cudaSuccess)
    throw RuntimeError(std::string("CUDA call failed: ") + call + ": " + cuda_error_text(error) +
                       " (" + file + ":" + std::to_string(line) + ")");
}

}  // namespace normbench

#define NORMBENCH_CUDA_CHECK(call) ::normbench::cuda_check((call), #call, __FILE__, __LINE__)
