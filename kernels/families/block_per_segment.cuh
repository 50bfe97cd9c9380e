// The general kernel: correct for every shape and format, the fallback of each op's dispatch.
//
// One block of 512 threads per segment (grid-strided over segments), CUB block reductions,
// separate passes over global memory: sum of (x - shift), sum of squared deviations (RMSNorm:
// of squares, no mean pass), normalize. 16-byte accesses when the segments are contiguous and
// segment_size is a multiple of the 16-byte vector (x from cudaMalloc is then aligned for every
// segment), scalar otherwise (odd rows, channels-last groups). Per-thread sums run in float over
// short runs of 32 elements and are accumulated in double, so rows of millions of elements keep
// their precision. add_rms_norm first stores s = x + residual (rounded to the data's type); after
// a barrier the block reads back the rounded s and normalizes it.
//
// The template arguments are those of naive_kernel.cuh. With T = float, centered, contiguous
// segments and the float32 RowParams/ChannelParams this is the code of the committed float32
// results.
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

// kVec consecutive elements of T at a time, widened to float: one element, a float4, or eight
// 16-bit values (Pack16). pack() gives what is stored, written through a stored* cast of the
// output pointer, so that its __restrict__ reaches the store (a store through a helper's
// pointer argument let nvcc hoist fewer loads and changed the float32 code: 32 instead of 40
// registers).
template <class T, int kVec>
struct Pack;
template <class T>
struct Pack<T, 1> {
  using type = float;
  using stored = T;
  static __device__ __forceinline__ float load(const T* p) { return to_float<T>(*p); }
  static __device__ __forceinline__ T pack(float v) { return from_float<T>(v); }
  static __device__ __forceinline__ float get(float v, int) { return v; }
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
struct Pack<float, 4> {
  using type = float4;
  using stored = float4;
  static __device__ __forceinline__ float4 load(const float* p) {
    return *reinterpret_cast<const float4*>(p);
  }
  static __device__ __forceinline__ float4 pack(float4 v) { return v; }
  static __device__ __forceinline__ float get(float4 v, int j) {
    return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w;
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
template <class T>
struct Pack<T, 8> {  // bfloat16 or float16
  using type = Pack16<T>;
  using stored = uint4;
  static_assert(type::kCount == 8, "16-bit types only");
  static __device__ __forceinline__ type load(const T* p) {
    type v;
    v.load(p);
    return v;
  }
  static __device__ __forceinline__ uint4 pack(const type& v) {
    uint4 raw;
    T* e = reinterpret_cast<T*>(&raw);
#pragma unroll
    for (int j = 0; j < 8; ++j) e[j] = from_float<T>(v.v[j]);
    return raw;
  }
  static __device__ __forceinline__ float get(const type& v, int j) {
    return v.v[j];
  }
  template <class F>
  static __device__ __forceinline__ void each(const type& v, F&& f) {
#pragma unroll
    for (int j = 0; j < 8; ++j) f(v.v[j], j);
  }
  template <class F>
  static __device__ __forceinline__ type map(const type& v, F&& f) {
    type out;
#pragma unroll
    for (int j = 0; j < 8; ++j) out.v[j] = f(v.v[j], j);
    return out;
  }
};

// residual and sum: add_rms_norm's residual and s, else null. kVec > 1 only with contiguous
// segments whose size is a multiple of kVec.
template <class T, int kVec, Norm kNorm, class Segments, class Params, class Epilogue>
__global__ void __launch_bounds__(kBlockPerSegmentThreads)
    block_per_segment_kernel(const T* __restrict__ x, T* __restrict__ y, Params params,
                             Epilogue epilogue, int64_t num_segments, int64_t segment_size,
                             double eps, Segments segments, const T* __restrict__ residual,
                             T* sum) {
  using BlockReduce = cub::BlockReduce<double, kBlockPerSegmentThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  __shared__ double shared_total;
  using P = Pack<T, kVec>;
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
    if constexpr (kNorm == Norm::add_rms) {
      const auto xs = segments.segment(x, segment, segment_size);
      const auto rs = segments.segment(residual, segment, segment_size);
      const auto ss = segments.segment(sum, segment, segment_size);
      for (int64_t i = threadIdx.x * int64_t{kVec}; i < segment_size;
           i += int64_t{kBlockPerSegmentThreads} * kVec) {
        const auto r = P::load(rs + i);
        *reinterpret_cast<typename P::stored*>(ss + i) =
            P::pack(P::map(P::load(xs + i), [&](float v, int j) { return v + P::get(r, j); }));
      }
      __syncthreads();  // the passes below read s as written (rounded), by any thread
    }
    // The normalized input: x, or add_rms_norm's stored s (plain loads: it was written here).
    const auto xs = segments.segment(kNorm == Norm::add_rms ? static_cast<const T*>(sum) : x,
                                     segment, segment_size);
    const auto ys = segments.segment(y, segment, segment_size);

    // RMSNorm: shift and delta stay 0, so normalize() is x * rstd.
    float shift = 0.0f, delta = 0.0f;
    if constexpr (kNorm == Norm::centered) {
      shift = to_float<T>(xs[0]);
      ChunkedSum total;
      for (int64_t i = threadIdx.x * int64_t{kVec}; i < segment_size;
           i += int64_t{kBlockPerSegmentThreads} * kVec)
        P::each(P::load(xs + i), [&](float v, int) { total.add(v - shift); });
      delta = static_cast<float>(block_total(total.total()) / n);
    }

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
      *reinterpret_cast<typename P::stored*>(ys + i) =
          P::pack(P::map(P::load(xs + i), [&](float v, int j) {
            return finish(normalize(v, stats), segment_params.at(i + j), epilogue);
          }));
    }
  }
}

template <class T, int kVec, Norm kNorm, class Segments, class Params, class Epilogue>
cudaError_t launch_block_per_segment_as(const ProblemShape& p, const DeviceCaps& device,
                                        const KernelArgs& args, Segments segments, Params params,
                                        Epilogue epilogue) {
  // Enough blocks to fill the device several times over; more just grid-stride.
  const int64_t max_blocks = int64_t{device.sm_count > 0 ? device.sm_count : 132} * 64;
  const auto blocks =
      static_cast<unsigned>(p.num_segments < max_blocks ? p.num_segments : max_blocks);
  block_per_segment_kernel<T, kVec, kNorm><<<blocks, kBlockPerSegmentThreads, 0, args.stream>>>(
      static_cast<const T*>(args.x), static_cast<T*>(args.y), params, epilogue, p.num_segments,
      p.segment_size, p.eps, segments, static_cast<const T*>(args.residual),
      static_cast<T*>(args.sum));
  return cudaGetLastError();
}

// Contiguous segments (rows, NCHW groups): 16-byte accesses where every segment is aligned.
template <class T, Norm kNorm, class Params, class Epilogue>
cudaError_t launch_block_per_segment(const ProblemShape& p, const DeviceCaps& device,
                                     const KernelArgs& args, Params params, Epilogue epilogue) {
  constexpr int kVec = 16 / static_cast<int>(sizeof(T));
  if (p.segment_size % kVec == 0)
    return launch_block_per_segment_as<T, kVec, kNorm>(p, device, args, ContiguousSegments{},
                                                       params, epilogue);
  return launch_block_per_segment_as<T, 1, kNorm>(p, device, args, ContiguousSegments{}, params,
                                                  epilogue);
}

// Rows of LayerNorm (kNorm centered, any epilogue), RMSNorm (rms) and add_rms_norm (add_rms).
template <Norm kNorm, class Epilogue>
cudaError_t launch_block_per_row(const ProblemShape& p, const DeviceCaps& device,
                                 const KernelArgs& args, Epilogue epilogue) {
  if constexpr (kNorm == Norm::centered) {
    // float32 with weight and bias or neither: the instantiations of the committed results.
    if (p.is_classic())
      return launch_block_per_segment<float, kNorm>(p, device, args, row_params(args), epilogue);
  }
  return with_element_types(p, [&](auto data, auto param) {
    using T = typename decltype(data)::type;
    using P = typename decltype(param)::type;
    return launch_block_per_segment<T, kNorm>(p, device, args, typed_row_params<P>(args), epilogue);
  });
}

}  // namespace normbench::kernels
