// The baseline every speedup is measured against, written the way a first attempt is:
// one block of 256 threads per segment (LayerNorm row or GroupNorm group), a hand-written
// shared-memory tree reduction, and three separate passes over global memory (mean,
// variance, normalize), one element per thread per step.
//
// Its one concession is accumulating in double: in float, a thread's 16K sequential additions
// on problem A lose precision close to the 1e-5 tolerance, and a baseline that fails
// verification cannot be timed. Memory traffic and parallelism, which set its speed, are those
// of the first attempt. Supports every shape.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/device/device_math.cuh"

namespace normbench::kernels {

constexpr int kNaiveThreads = 256;

// Sums `value` over the block with a shared-memory tree; every thread gets the total.
__device__ __forceinline__ double naive_block_sum(double value, double* scratch) {
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (int stride = kNaiveThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) scratch[threadIdx.x] += scratch[threadIdx.x + stride];
    __syncthreads();
  }
  const double total = scratch[0];
  __syncthreads();  // scratch is reused by the next reduction
  return total;
}

template <class Params, class Epilogue>
__global__ void __launch_bounds__(kNaiveThreads)
    naive_kernel(const float* x, float* y, Params params, Epilogue epilogue, int64_t segment_size,
                 double eps) {
  __shared__ double scratch[kNaiveThreads];
  const int64_t segment = blockIdx.x;
  const float* xs = x + segment * segment_size;
  float* ys = y + segment * segment_size;
  const double n = static_cast<double>(segment_size);

  double sum = 0.0;
  for (int64_t i = threadIdx.x; i < segment_size; i += kNaiveThreads) sum += xs[i];
  const double mean = naive_block_sum(sum, scratch) / n;

  double squares = 0.0;
  for (int64_t i = threadIdx.x; i < segment_size; i += kNaiveThreads) {
    const double d = xs[i] - mean;
    squares += d * d;
  }
  const double rstd = 1.0 / sqrt(naive_block_sum(squares, scratch) / n + eps);

  const auto segment_params = params.for_segment(segment);
  for (int64_t i = threadIdx.x; i < segment_size; i += kNaiveThreads) {
    const auto normalized = static_cast<float>((xs[i] - mean) * rstd);
    ys[i] = finish(normalized, segment_params.at(i), epilogue);
  }
}

}  // namespace normbench::kernels
