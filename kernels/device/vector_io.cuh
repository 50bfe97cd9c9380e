// 16-byte loads and stores with cache hints, and float4 arithmetic used by the kernels.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace normbench::kernels {

// Streamed once: evict first from L1 and L2 so that reused data (weight, bias) stays.
__device__ __forceinline__ float4 load_streaming(const float4* p) {
  return __ldcs(p);
}
__device__ __forceinline__ void store_streaming(float4* p, float4 v) {
  __stcs(p, v);
}

__device__ __forceinline__ float sum_of(float4 v) {
  return (v.x + v.y) + (v.z + v.w);
}

__device__ __forceinline__ float4 minus(float4 v, float s) {
  return make_float4(v.x - s, v.y - s, v.z - s, v.w - s);
}

struct WeightBias4 {
  float4 w;
  float4 b;
};

}  // namespace normbench::kernels
