// Block-wide sums and the cross-block exchange of partial statistics used by the kernels that
// split one segment over several thread blocks.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/families/split_plan.hpp"

namespace normbench::kernels {

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Sum over a warp by butterfly: every lane ends with the same bits.
__device__ __forceinline__ double warp_sum_all(double v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Sums a and b over a block of kThreads threads (a multiple of 32, at most 1024); every thread
// gets both. `scratch` holds 2 * 32 doubles. Two barriers.
template <int kThreads>
__device__ __forceinline__ double2 block_sum2(double a, double b, double* scratch) {
  constexpr int kWarps = kThreads / 32;
  a = warp_sum_all(a);
  b = warp_sum_all(b);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    scratch[warp] = a;
    scratch[32 + warp] = b;
  }
  __syncthreads();
  a = lane < kWarps ? scratch[lane] : 0.0;
  b = lane < kWarps ? scratch[32 + lane] : 0.0;
  a = warp_sum_all(a);
  b = warp_sum_all(b);
  __syncthreads();  // scratch is reused by the next call
  return make_double2(a, b);
}

// Each segment has an arrival counter: how many blocks of its set have published their
// partial. (Polling it in a tight loop measured faster than a separate release flag polled
// with __nanosleep backoff: 0.441 vs 0.482 ms on problem A; kernels/NOTES.md.)

// Publishes this block's partial and arrives on the segment's counter. Called by one thread.
__device__ __forceinline__ void publish_partial(SlicePartial* slot, const SlicePartial& mine,
                                                unsigned* arrivals) {
  *slot = mine;
  __threadfence();
  atomicAdd(arrivals, 1u);
}

// Waits until all `blocks` blocks have published their partial of the segment. Called by one
// thread; the caller then syncs its block.
__device__ __forceinline__ void wait_for_partials(const unsigned* arrivals, unsigned blocks) {
  while (load_acquire(arrivals) < blocks) {
  }
}

// Merges the `blocks` partials at `p` (at most kMaxBlocksPerSegment) into mean and M2 relative to
// the shift. Called by a whole warp; every lane of every block gets bit-identical results because
// the order of operations is fixed.
__device__ __forceinline__ double2 merge_partials(const SlicePartial* p, int blocks) {
  constexpr int kPerLane = kMaxBlocksPerSegment / 32;
  const int lane = threadIdx.x % 32;
  double count[kPerLane], mean[kPerLane], m2[kPerLane];
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {  // all loads first: one round trip to L2
    const int i = lane + 32 * j;
    const bool valid = i < blocks;
    count[j] = valid ? __ldcg(&p[i].count) : 0.0;
    mean[j] = valid ? __ldcg(&p[i].mean) : 0.0;
    m2[j] = valid ? __ldcg(&p[i].m2) : 0.0;
  }
  double total = 0.0, weighted = 0.0;
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    total += count[j];
    weighted += count[j] * mean[j];
  }
  const double merged_mean = warp_sum_all(weighted) / warp_sum_all(total);
  double merged_m2 = 0.0;
#pragma unroll
  for (int j = 0; j < kPerLane; ++j) {
    const double d = mean[j] - merged_mean;
    merged_m2 += m2[j] + count[j] * d * d;
  }
  return make_double2(merged_mean, warp_sum_all(merged_m2));
}

}  // namespace normbench::kernels
