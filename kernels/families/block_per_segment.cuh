// The general kernel: correct for every shape, the fallback of each op's dispatch.
//
// One block of 512 threads per segment (grid-strided over segments), CUB block reductions,
// three passes over global memory: sum of (x - shift), sum of squared deviations, normalize.
// 16-byte accesses when segment_size % 4 == 0 (x from cudaMalloc is then aligned for every
// segment), scalar otherwise. Per-thread sums run in float over short runs of 32 elements
// and are accumulated in double, so rows of millions of elements keep their precision.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cub/block/block_reduce.cuh>

#include "kernels/device/device_math.cuh"
#include "kernels/families/launch_helpers.hpp"

namespace normbench::kernels {

constexpr int kBlockPerSegmentThreads = 512;

// Float for runs of kRun values, double across runs: cheap and accurate for long loops.
class ChunkedSum {
 public:
  __device__ __forceinline__ void add(float v) {
    run_ += v;
    if (++count_ == kRun) flush();
  }
  __device__ __forceinline__ double total() {
    flush();
    return total_;
  }

 private:
  static constexpr int kRun = 32;
  __device__ __forceinline__ void flush() {
    total_ += run_;
    run_ = 0.0f;
    count_ = 0;
  }
  double total_ = 0.0;
  float run_ = 0.0f;
  int count_ = 0;
};

// Loads of one element (kVec = 1) or four (kVec = 4) at a time.
template <int kVec>
struct Pack;
template <>
struct Pack<1> {
  using type = float;
  static __device__ __forceinline__ float load(const float* p) { return *p; }
  template <class F>
  static __device__ __forceinline__ void each(float v, F&& f) {
    f(v, 0);
  }
  template <class F>
  static __device__ __forceinline__ float map(float v, F&& f) {
    return f(v, 0);
  }
};
template <>
struct Pack<4> {
  using type = float4;
  static __device__ __forceinline__ float4 load(const float* p) {
    return *reinterpret_cast<const float4*>(p);
  }
  template <class F>
  static __device__ __forceinline__ void each(float4 v, F&& f) {
    f(v.x, 0);
    f(v.y, 1);
    f(v.z, 2);
    f(v.w, 3);
  }
  template <class F>
  static __device__ __forceinline__ float4 map(float4 v, F&& f) {
    return make_float4(f(v.x, 0), f(v.y, 1), f(v.z, 2), f(v.w, 3));
  }
};

template <int kVec, class Params, class Epilogue>
__global__ void __launch_bounds__(kBlockPerSegmentThreads)
    block_per_segment_kernel(const float* __restrict__ x, float* __restrict__ y, Params params,
                             Epilogue epilogue, int64_t num_segments, int64_t segment_size,
                             double eps) {
  using BlockReduce = cub::BlockReduce<double, kBlockPerSegmentThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  __shared__ double shared_total;
  using P = Pack<kVec>;
  const double n = static_cast<double>(segment_size);

  auto block_total = [&](double value) {
    const double total = BlockReduce(temp).Sum(value);
    if (threadIdx.x == 0) shared_total = total;
    __syncthreads();
    const double result = shared_total;
    __syncthreads();
    return result;
  };

  for (int64_t segment = blockIdx.x; segment < num_segments; segment += gridDim.x) {
    const float* xs = x + segment * segment_size;
    float* ys = y + segment * segment_size;
    const float shift = xs[0];

    ChunkedSum sum;
    for (int64_t i = threadIdx.x * int64_t{kVec}; i < segment_size;
         i += int64_t{kBlockPerSegmentThreads} * kVec)
      P::each(P::load(xs + i), [&](float v, int) { sum.add(v - shift); });
    const auto delta = static_cast<float>(block_total(sum.total()) / n);

    ChunkedSum squares;
    for (int64_t i = threadIdx.x * int64_t{kVec}; i < segment_size;
         i += int64_t{kBlockPerSegmentThreads} * kVec)
      P::each(P::load(xs + i), [&](float v, int) {
        const float d = (v - shift) - delta;
        squares.add(d * d);
      });
    const SegmentStats stats{
        shift, delta, static_cast<float>(1.0 / sqrt(block_total(squares.total()) / n + eps))};

    const auto segment_params = params.for_segment(segment);
    for (int64_t i = threadIdx.x * int64_t{kVec}; i < segment_size;
         i += int64_t{kBlockPerSegmentThreads} * kVec) {
      *reinterpret_cast<typename P::type*>(ys + i) = P::map(P::load(xs + i), [&](float v, int j) {
        return finish(normalize(v, stats), segment_params.at(i + j), epilogue);
      });
    }
  }
}

template <class Params, class Epilogue>
cudaError_t launch_block_per_segment(const ProblemShape& p, const DeviceCaps& device,
                                     const KernelArgs& args, Params params, Epilogue epilogue) {
  // Enough blocks to fill the device several times over; more just grid-stride.
  const int64_t max_blocks = int64_t{device.sm_count > 0 ? device.sm_count : 132} * 64;
  const auto blocks =
      static_cast<unsigned>(p.num_segments < max_blocks ? p.num_segments : max_blocks);
  if (p.segment_size % 4 == 0)
    block_per_segment_kernel<4><<<blocks, kBlockPerSegmentThreads, 0, args.stream>>>(
        x_f32(args), y_f32(args), params, epilogue, p.num_segments, p.segment_size, p.eps);
  else
    block_per_segment_kernel<1><<<blocks, kBlockPerSegmentThreads, 0, args.stream>>>(
        x_f32(args), y_f32(args), params, epilogue, p.num_segments, p.segment_size, p.eps);
  return cudaGetLastError();
}

}  // namespace normbench::kernels
