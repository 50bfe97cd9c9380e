// 16-byte loads and stores with cache hints, and float4 arithmetic used by the kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normbench::kernels {

// Streamed once: evict first from L1 and L2 so that reused data (weight, bias) stays.
__device__ __forceinline__ float4 load_streaming(const float4* p) { return __ldcs(p); }
__device__ __forceinline__ void store_streaming(float4* p, float4 v) { __stcs(p, v); }

// Read again and again (LayerNorm weight and bias, re-read for every row): ask L2 to evict
// these lines last, so the streamed x and y do not push them out.
__device__ __forceinline__ float4 load_kept_in_l2(const float4* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint64_t policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  float4 v;
  asm("ld.global.nc.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "l"(p), "l"(policy));
  return v;
#else
  return __ldg(p);
#endif
}

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
