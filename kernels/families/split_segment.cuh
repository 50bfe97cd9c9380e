// Segments too long for one SM, split across a set of thread blocks that hold their slices in
// shared memory, so that x is read from DRAM exactly once: the shape of problems A (16 rows
// of 4M) and B (896 groups of 2M).
//
// A persistent cooperative grid of one 1024-thread block per SM is cut into `sets` of
// `blocks_per_segment` blocks; set s handles segments s, s + sets, ... For each segment:
//   1. every block loads its slice (up to ~220 KB) into shared memory and computes
//      (count, mean, M2) of it: a two-pass on chip, relative to the segment's first element;
//   2. publishes them to global memory and arrives on the segment's counter, then waits for
//      the other blocks of its set (co-residency is guaranteed by the cooperative launch);
//   3. merges all partials of the segment in a fixed order (Chan's formulas in double), so
//      every block derives bit-identical statistics;
//   4. normalizes its slice from shared memory and streams the output out.
// Assumes segment_size % 4 == 0 (16-byte slices) and that a segment fits in the shared memory
// of all SMs together.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/device/device_math.cuh"
#include "kernels/device/segment_sync.cuh"
#include "kernels/device/vector_io.cuh"
#include "kernels/families/launch_helpers.hpp"
#include "kernels/families/split_plan.hpp"

namespace normbench::kernels {

template <class Params, class Epilogue>
__global__ void __launch_bounds__(kSplitThreads, 1)
    split_segment_kernel(const float* __restrict__ x, float* __restrict__ y, Params params,
                         Epilogue epilogue, int64_t num_segments, int64_t segment_size,
                         int blocks_per_segment, int sets, double eps,
                         SlicePartial* __restrict__ partials, unsigned* __restrict__ arrivals) {
  extern __shared__ float4 slice[];
  __shared__ double scratch[64];
  __shared__ SegmentStats shared_stats;

  const int k = blocks_per_segment;
  const int set = static_cast<int>(blockIdx.x) / k;
  const int member = static_cast<int>(blockIdx.x) % k;
  const int64_t vecs = segment_size / 4;
  const int64_t first_vec = vecs * member / k;
  const int n_vecs = static_cast<int>(vecs * (member + 1) / k - first_vec);
  const double count = 4.0 * n_vecs;

  for (int64_t segment = set; segment < num_segments; segment += sets) {
    const float shift = __ldg(x + segment * segment_size);
    const float4* xs = reinterpret_cast<const float4*>(x + segment * segment_size) + first_vec;

    // 1. Load the slice, summing as it arrives; then deviations from the slice mean, on chip.
    float sum = 0.0f;
#pragma unroll 4
    for (int i = threadIdx.x; i < n_vecs; i += kSplitThreads) {
      const float4 v = load_streaming(xs + i);
      slice[i] = v;
      sum += sum_of(minus(v, shift));
    }
    // A block may own no float4 of a tiny segment; its partial then has count 0.
    const double block_sum = block_sum2<kSplitThreads>(sum, 0.0, scratch).x;
    const auto slice_delta = count > 0 ? static_cast<float>(block_sum / count) : 0.0f;
    float dev = 0.0f, dev_sq = 0.0f;
    for (int i = threadIdx.x; i < n_vecs; i += kSplitThreads) {
      const float4 d = minus(minus(slice[i], shift), slice_delta);
      dev += sum_of(d);
      dev_sq += (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
    }
    const double2 s = block_sum2<kSplitThreads>(dev, dev_sq, scratch);

    // 2-3. Exchange partials with the other blocks of the set; merge them identically.
    if (threadIdx.x == 0) {
      const SlicePartial mine =
          count > 0 ? SlicePartial{count, slice_delta + s.x / count, s.y - s.x * s.x / count}
                    : SlicePartial{0.0, 0.0, 0.0};
      publish_partial(partials + segment * k + member, mine, arrivals + segment);
      wait_for_partials(arrivals + segment, static_cast<unsigned>(k));
    }
    __syncthreads();
    if (threadIdx.x < 32) {
      const double2 merged = merge_partials(partials + segment * k, k);
      if (threadIdx.x == 0)
        shared_stats = {
            shift, static_cast<float>(merged.x),
            static_cast<float>(1.0 / sqrt(merged.y / static_cast<double>(segment_size) + eps))};
    }
    __syncthreads();

    // 4. Normalize from shared memory.
    const SegmentStats stats = shared_stats;
    const auto segment_params = params.for_segment(segment);
    float4* ys = reinterpret_cast<float4*>(y + segment * segment_size) + first_vec;
#pragma unroll 4
    for (int i = threadIdx.x; i < n_vecs; i += kSplitThreads)
      store_streaming(ys + i,
                      finish4(slice[i], stats, segment_params.at4((first_vec + i) * 4), epilogue));
    __syncthreads();  // the slice is overwritten by the next segment
  }
}

template <class Params, class Epilogue>
cudaError_t launch_split_segment(const ProblemShape& p, const SplitPlan& plan,
                                 const KernelArgs& args, Params params, Epilogue epilogue) {
  auto* arrivals = static_cast<unsigned*>(args.workspace);
  auto* partials =
      reinterpret_cast<SlicePartial*>(static_cast<char*>(args.workspace) + split_arrivals_bytes(p));
  cudaError_t error = cudaMemsetAsync(arrivals, 0, split_arrivals_bytes(p), args.stream);
  if (error != cudaSuccess) return error;

  auto kernel = split_segment_kernel<Params, Epilogue>;
  error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(plan.smem_bytes));
  if (error != cudaSuccess) return error;
  const float* x = x_f32(args);
  float* y = y_f32(args);
  int64_t num_segments = p.num_segments, segment_size = p.segment_size;
  int blocks_per_segment = plan.blocks_per_segment, sets = plan.sets;
  double eps = p.eps;
  void* kernel_args[] = {
      &x,    &y,   &params,   &epilogue, &num_segments, &segment_size, &blocks_per_segment,
      &sets, &eps, &partials, &arrivals};
  return cudaLaunchCooperativeKernel(
      reinterpret_cast<const void*>(kernel),
      dim3(static_cast<unsigned>(plan.sets * plan.blocks_per_segment)), dim3(kSplitThreads),
      kernel_args, plan.smem_bytes, args.stream);
}

}  // namespace normbench::kernels
