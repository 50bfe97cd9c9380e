// 16-byte loads and stores with cache hints, and float4 arithmetic used by the kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normbench::kernels {

// Streamed once: evict first from L1 and L2 so that reused data (weight, bias) stays.
__device__ __forceinline__ float4 load_streaming(const float4* p) { return __ldcs(p); }
__device__ __forceinline__ void store_streaming(float4* p, float4 v) { __stcs(p, v); }

// Starts moving [p, p + bytes) from DRAM into L2 without waiting for it (Hopper's bulk-copy
// engine); p and bytes must be multiples of 16. A no-op before sm_90.
__device__ __forceinline__ void prefetch_to_l2(const void* p, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
#else
  (void)p;
  (void)bytes;
#endif
}

__device__ __forceinline__ float sum_of(float4 v) { return (v.x + v.y) + (v.z + v.w); }

__device__ __forceinline__ float4 minus(float4 v, float s) {
  return make_float4(v.x - s, v.y - s, v.z - s, v.w - s);
}

struct WeightBias4 {
  float4 w;
  float4 b;
};

}  // namespace normbench::kernels
