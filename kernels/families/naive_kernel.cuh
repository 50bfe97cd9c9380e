// The baseline every speedup is measured against, written the way a first attempt is:
// one block of 256 threads per segment (LayerNorm/RMSNorm row or GroupNorm group), a
// hand-written shared-memory tree reduction, and separate passes over global memory (mean,
// variance or mean square, normalize), one element per thread per step.
//
// Its one concession is accumulating in double: in float, a thread's 16K sequential additions
// on problem A lose precision close to the 1e-5 tolerance, and a baseline that fails
// verification cannot be timed. Memory traffic and parallelism, which set its speed, are those
// of the first attempt. Supports every shape and format:
//   T         the data's type (float, __nv_bfloat16, __half), widened to float when loaded and
//             rounded once when stored;
//   kNorm     centered (LayerNorm, GroupNorm: the mean pass), rms (no mean pass: the mean is 0)
//             or add_rms (a first pass stores s = x + residual rounded to T; after a barrier the
//             block reads back the rounded s it wrote and normalizes that);
//   Segments  where a segment lies (ContiguousSegments, or a channels-last group's view);
//   Params    its weight and bias.
// With T = float, centered, contiguous segments and the float32 RowParams/ChannelParams this is
// the code of the committed float32 results (the same passes, arithmetic and accesses).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/device/device_math.cuh"
#include "kernels/device/element_types.cuh"
#include "kernels/device/segment_access.cuh"

namespace normbench::kernels {

constexpr int kNaiveThreads = 256;

// Sums `value` over a block of kNaiveThreads with a shared-memory tree, in V (the forward
// baselines double, the backward ones float); every thread gets the total.
template <class V>
__device__ __forceinline__ V naive_block_sum(V value, V* scratch) {
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (int stride = kNaiveThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) scratch[threadIdx.x] += scratch[threadIdx.x + stride];
    __syncthreads();
  }
  const V total = scratch[0];
  __syncthreads();  // scratch is reused by the next reduction
  return total;
}

// residual and sum: add_rms_norm's residual and s, else null.
template <class T, Norm kNorm, class Segments, class Params, class Epilogue>
__global__ void __launch_bounds__(kNaiveThreads)
    naive_kernel(const T* x, T* y, Params params, Epilogue epilogue, int64_t segment_size,
                 double eps, Segments segments, const T* residual, T* sum) {
  __shared__ double scratch[kNaiveThreads];
  const int64_t segment = blockIdx.x;
  const double n = static_cast<double>(segment_size);

  if constexpr (kNorm == Norm::add_rms) {
    const auto xs = segments.segment(x, segment, segment_size);
    const auto rs = segments.segment(residual, segment, segment_size);
    const auto ss = segments.segment(sum, segment, segment_size);
    for (int64_t i = threadIdx.x; i < segment_size; i += kNaiveThreads)
      ss[i] = from_float<T>(to_float<T>(xs[i]) + to_float<T>(rs[i]));
    __syncthreads();  // the passes below read s as written (rounded), by any thread
  }
  // The normalized input: x, or add_rms_norm's stored s.
  const auto xs = segments.segment(kNorm == Norm::add_rms ? static_cast<const T*>(sum) : x, segment,
                                   segment_size);
  const auto ys = segments.segment(y, segment, segment_size);

  double mean = 0.0;  // RMSNorm divides by the root mean square: no centering
  if constexpr (kNorm == Norm::centered) {
    double total = 0.0;
    for (int64_t i = threadIdx.x; i < segment_size; i += kNaiveThreads) total += to_float<T>(xs[i]);
    mean = naive_block_sum(total, scratch) / n;
  }

  double squares = 0.0;
  for (int64_t i = threadIdx.x; i < segment_size; i += kNaiveThreads) {
    const double d = to_float<T>(xs[i]) - mean;
    squares += d * d;
  }
  const double rstd = 1.0 / sqrt(naive_block_sum(squares, scratch) / n + eps);

  const auto segment_params = params.for_segment(segment);
  for (int64_t i = threadIdx.x; i < segment_size; i += kNaiveThreads) {
    const auto normalized = static_cast<float>((to_float<T>(xs[i]) - mean) * rstd);
    ys[i] = from_float<T>(finish(normalized, segment_params.at(i), epilogue));
  }
}

}  // namespace normbench::kernels
