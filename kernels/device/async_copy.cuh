// cp.async (sm_80+): 16-byte copies from global to shared memory that complete in the
// background, tracked per thread in commit groups.
#pragma once

#include <cuda_runtime.h>

namespace normbench::kernels {

// Copies 16 bytes, bypassing L1 (.cg), or with kThroughL1 through it (.ca): blocks of an SM
// that copy the same bytes then find them there.
template <bool kThroughL1 = false>
__device__ __forceinline__ void copy_async16(void* smem, const void* global) {
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (kThroughL1)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(address), "l"(global)
                 : "memory");
  else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(address), "l"(global)
                 : "memory");
}

// Closes this thread's current group of copies.
__device__ __forceinline__ void commit_copies() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}

// Waits until at most `kPending` of this thread's committed groups are still in flight; the
// thread then sees the data of all older groups.
template <int kPending>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}

}  // namespace normbench::kernels
