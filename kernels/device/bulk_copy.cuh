// Bulk copies from global to shared memory (cp.async.bulk, sm_90): one instruction moves a
// contiguous range of any multiple of 16 bytes through the TMA unit's own queue, and the
// shared-memory barrier (mbarrier) it names counts the bytes as they land. Compiled for an
// older device, each traps: plans that use them decline such devices.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

// The body on sm_90 and later (and on the host pass); a trap on older devices.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define NORMBENCH_SM90_ONLY(...) __trap()
#else
#define NORMBENCH_SM90_ONLY(...) __VA_ARGS__
#endif

namespace normbench::kernels {

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One thread initializes each barrier for `arrivals` arrivals, then fences once; the others may
// use the barriers after a block barrier.
__device__ __forceinline__ void init_bulk_barrier(uint64_t* barrier, int arrivals) {
  NORMBENCH_SM90_ONLY(asm volatile(
      "mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(barrier)), "r"(arrivals)
      : "memory"));
}
__device__ __forceinline__ void fence_bulk_barrier_init() {
  NORMBENCH_SM90_ONLY(asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"));
}

// One of the barrier's arrivals, with the bytes this thread's copies will bring (0: none).
__device__ __forceinline__ void expect_bulk_bytes(uint64_t* barrier, unsigned bytes) {
  NORMBENCH_SM90_ONLY(asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(barrier)),
      "r"(bytes)
      : "memory"));
}

// `bytes` (a multiple of 16, both addresses 16-byte aligned) from global to shared memory.
__device__ __forceinline__ void bulk_copy(void* shared, const void* global, unsigned bytes,
                                          uint64_t* barrier) {
  NORMBENCH_SM90_ONLY(asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(shared_address(shared)),
      "l"(global), "r"(bytes), "r"(shared_address(barrier))
      : "memory"));
}

// Waits until the barrier's first phase completed: every arrival made and every expected byte
// landed. (Parity 0: a barrier used once after its initialization.)
__device__ __forceinline__ void wait_first_phase(uint64_t* barrier) {
  unsigned done = 0;
  do {
    NORMBENCH_SM90_ONLY(asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, "
        "p; }"
        : "=r"(done)
        : "r"(shared_address(barrier))
        : "memory"));
  } while (!done);
}

}  // namespace normbench::kernels
