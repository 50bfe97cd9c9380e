// A device allocation with guard regions before and after the bytes handed to a kernel (its
// output, its workspace), filled with a position-dependent pattern. After every launch the
// harness compares the guards with the pattern; a kernel that wrote outside what it was given
// changes them, and the damage says where (before or after) and how far.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "app/check/integrity.hpp"
#include "app/device/device_buffer.hpp"

namespace normbench {

class GuardedBuffer {
 public:
  // 1 MiB each side: a write one element or one row past the end lands in a guard, and the
  // check reads 2 MiB per launch (about a microsecond).
  static constexpr size_t kGuardBytes = size_t{1} << 20;

  GuardedBuffer() = default;
  explicit GuardedBuffer(size_t bytes);  // bytes may be 0: any write is then outside

  void* get() const { return usable_; }
  template <typename T>
  T* as() const {
    return reinterpret_cast<T*>(usable_);
  }
  size_t bytes() const { return bytes_; }

  // Fills both guards with the pattern and clears the damage tally.
  cudaError_t arm(cudaStream_t stream) const;
  // Enqueues a comparison of the guards with the pattern; damage accumulates until arm().
  cudaError_t check(cudaStream_t stream) const;
  // The damage found by the checks so far. Synchronizes the stream.
  GuardDamage damage(cudaStream_t stream) const;

 private:
  DeviceBuffer raw_;
  DeviceBuffer tally_;  // 4 x unsigned long long: GuardDamage's fields
  char* usable_ = nullptr;
  size_t bytes_ = 0;
  size_t back_offset_ = 0;  // of the back guard from the start of raw_
};

}  // namespace normbench
