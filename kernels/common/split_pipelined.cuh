// Segments split across thread blocks, as in split_segment.cuh, pipelined so that neither
// DRAM nor the SMs wait on the cross-block exchange of statistics.
//
// Each block of 1024 threads owns a ring of up to 14 chunks of 16 KB (1024 float4, one per
// thread) in shared memory; its slice of a segment is ceil(slice / 16 KB) consecutive chunks.
// One thread keeps the ring full with 1-D bulk copies (TMA), each completing on its chunk's
// mbarrier, so loads of the segments ahead stream in continuously. Normalization lags the
// statistics by one segment: in step j a block
//   1. computes its partial (count, mean, M2) of segment j from the ring (a two-pass on
//      chip, relative to the segment's first element) and publishes it without waiting;
//   2. waits for the partials of segment j-1 (published a whole step ago, so normally all
//      there), merges them in a fixed order (bit-identical in every block), normalizes
//      segment j-1 from the ring and streams it out, then frees its chunks for more copies.
// Assumes segment_size % 4 == 0, two slices fit in the ring (slice <= 7 chunks) and sm_90.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "bulk_copy.cuh"
#include "device_math.cuh"
#include "launch_helpers.hpp"
#include "segment_sync.cuh"
#include "split_plan.hpp"
#include "vector_io.cuh"

namespace normbench::kernels {

constexpr int kRingThreads = kChunkVecs;  // one float4 of each chunk per thread

struct RingGeometry {
  int64_t num_segments;
  int64_t segment_size;
  int blocks_per_segment;
  int sets;
  int ring_chunks;  // chunks in this block's ring
  double eps;
};

template <class Params, class Epilogue>
__global__ void __launch_bounds__(kRingThreads, 1)
    split_pipelined_kernel(const float* __restrict__ x, float* __restrict__ y, Params params,
                           Epilogue epilogue, RingGeometry g, SlicePartial* __restrict__ partials,
                           unsigned* __restrict__ arrivals) {
  extern __shared__ float4 ring[];  // ring_chunks * kChunkVecs
  __shared__ uint64_t landed[kMaxRingChunks];
  __shared__ double scratch[64];
  __shared__ SegmentStats shared_stats;

  const int k = g.blocks_per_segment;
  const int set = static_cast<int>(blockIdx.x) / k;
  const int member = static_cast<int>(blockIdx.x) % k;
  const int64_t vecs = g.segment_size / 4;
  const int64_t first_vec = vecs * member / k;
  const int n_vecs = static_cast<int>(vecs * (member + 1) / k - first_vec);
  const int chunks = (n_vecs + kChunkVecs - 1) / kChunkVecs;  // per segment
  const int64_t my_segments = set < g.num_segments ? (g.num_segments - set + g.sets - 1) / g.sets : 0;
  const int64_t total_chunks = my_segments * chunks;
  const int tid = threadIdx.x;

  // Chunk q of this block's sequence is chunk q % chunks of its (q / chunks)-th segment, and
  // lives in ring slot q % ring_chunks; its barrier completes once per trip around the ring.
  int64_t issued = 0;  // thread 0 only: chunks whose copy has been started
  auto issue_until = [&](int64_t limit) {
    for (; issued < limit && issued < total_chunks; ++issued) {
      const int64_t segment = set + (issued / chunks) * g.sets;
      const int c = static_cast<int>(issued % chunks);
      const int slot = static_cast<int>(issued % g.ring_chunks);
      const int count = min(kChunkVecs, n_vecs - c * kChunkVecs);
      const float* src = x + segment * g.segment_size + (first_vec + int64_t{c} * kChunkVecs) * 4;
      bulk_copy_to_shared(ring + int64_t{slot} * kChunkVecs, src, static_cast<uint32_t>(count) * 16,
                          &landed[slot]);
    }
  };
  if (tid == 0) {
    for (int s = 0; s < g.ring_chunks; ++s) mbarrier_init(&landed[s], 1);
    fence_barrier_init();
    issue_until(g.ring_chunks);
  }
  __syncthreads();

  auto my_vec = [&](int64_t j, int c) -> float4& {  // this thread's float4 of chunk c of step j
    return ring[((j * chunks + c) % g.ring_chunks) * kChunkVecs + tid];
  };
  auto owns = [&](int c) { return c * kChunkVecs + tid < n_vecs; };
  const double count = 4.0 * n_vecs;
  float shift_of_lagging = 0.0f;  // the shift of the segment normalized in this step
  float shift_of_leading = 0.0f;  // the shift of the segment whose statistics this step computes

  for (int64_t j = 0; j <= my_segments; ++j) {
    if (j < my_segments) {
      // 1. Partial statistics of segment j, published without waiting.
      const int64_t segment = set + j * g.sets;
      const float shift = shift_of_leading = __ldg(x + segment * g.segment_size);
      float sum = 0.0f;
      for (int c = 0; c < chunks; ++c) {
        const int64_t q = j * chunks + c;
        mbarrier_wait(&landed[q % g.ring_chunks], static_cast<uint32_t>((q / g.ring_chunks) & 1));
        if (owns(c)) sum += sum_of(minus(my_vec(j, c), shift));
      }
      const double block_sum = block_sum2<kRingThreads>(sum, 0.0, scratch).x;
      const auto slice_delta = count > 0 ? static_cast<float>(block_sum / count) : 0.0f;
      float dev = 0.0f, dev_sq = 0.0f;
      for (int c = 0; c < chunks; ++c)
        if (owns(c)) {
          const float4 d = minus(minus(my_vec(j, c), shift), slice_delta);
          dev += sum_of(d);
          dev_sq += (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
        }
      const double2 s = block_sum2<kRingThreads>(dev, dev_sq, scratch);
      if (tid == 0) {
        const SlicePartial mine = count > 0 ? SlicePartial{count, slice_delta + s.x / count,
                                                           s.y - s.x * s.x / count}
                                            : SlicePartial{0.0, 0.0, 0.0};
        publish_partial(partials + segment * k + member, mine, {arrivals + segment});
      }
    }
    if (j == 0) {
      shift_of_lagging = shift_of_leading;
      continue;
    }

    // 2. Normalize segment j - 1 with the merged statistics of its set.
    const int64_t segment = set + (j - 1) * g.sets;
    if (tid == 0) wait_for_partials({arrivals + segment}, static_cast<unsigned>(k));
    __syncthreads();
    if (tid < 32) {
      const double2 merged = merge_partials(partials + segment * k, k);
      if (tid == 0)
        shared_stats = {shift_of_lagging, static_cast<float>(merged.x),
                        static_cast<float>(1.0 / sqrt(merged.y / static_cast<double>(g.segment_size) + g.eps))};
    }
    __syncthreads();
    const SegmentStats stats = shared_stats;
    const auto segment_params = params.for_segment(segment);
    float4* ys = reinterpret_cast<float4*>(y + segment * g.segment_size) + first_vec;
    for (int c = 0; c < chunks; ++c)
      if (owns(c)) {
        const int64_t v = int64_t{c} * kChunkVecs + tid;
        store_streaming(ys + v, finish4(my_vec(j - 1, c), stats,
                                        segment_params.at4((first_vec + v) * 4), epilogue));
      }
    __syncthreads();  // every thread is done with segment j - 1's chunks
    if (tid == 0) {
      fence_proxy_async();
      issue_until(j * chunks + g.ring_chunks);
    }
    shift_of_lagging = shift_of_leading;
  }
}

template <class Params, class Epilogue>
cudaError_t launch_split_pipelined(const ProblemShape& p, const DeviceCaps& device,
                                   const KernelArgs& args, Params params, Epilogue epilogue) {
  const SplitPlan plan = plan_split_pipelined(p, device);
  if (!plan.unsupported.empty()) return cudaErrorInvalidConfiguration;
  auto* arrivals = static_cast<unsigned*>(args.workspace);
  auto* partials =
      reinterpret_cast<SlicePartial*>(static_cast<char*>(args.workspace) + split_arrivals_bytes(p));
  cudaError_t error = cudaMemsetAsync(arrivals, 0, split_arrivals_bytes(p), args.stream);
  if (error != cudaSuccess) return error;

  auto kernel = split_pipelined_kernel<Params, Epilogue>;
  error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(plan.smem_bytes));
  if (error != cudaSuccess) return error;
  const float* x = args.x;
  float* y = args.y;
  RingGeometry geometry{p.num_segments,
                        p.segment_size,
                        plan.blocks_per_segment,
                        plan.sets,
                        static_cast<int>(plan.smem_bytes / (kChunkVecs * 16)),
                        p.eps};
  void* kernel_args[] = {&x, &y, &params, &epilogue, &geometry, &partials, &arrivals};
  return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel),
                                     dim3(static_cast<unsigned>(plan.sets * plan.blocks_per_segment)),
                                     dim3(kRingThreads), kernel_args, plan.smem_bytes, args.stream);
}

}  // namespace normbench::kernels
