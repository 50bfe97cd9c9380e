// Short rows held in registers: kLanes lanes of a warp share one row (several rows per warp
// when kLanes < 32), each lane holding kVecs float4s. One read of x, one write of y, the
// statistics by warp shuffles with no shared memory and no block barrier: the shape of
// problem C (rows of 64). Assumes row_size % 4 == 0 (16-byte aligned rows) and
// row_size <= 1024.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/device/device_math.cuh"
#include "kernels/device/vector_io.cuh"
#include "kernels/families/launch_helpers.hpp"

namespace normbench::kernels {

constexpr int kRowsInRegistersThreads = 256;
constexpr int64_t kRowsInRegistersMaxRow = 32 * 8 * 4;

// Sum over the kLanes lanes of an aligned lane group; every lane of the group gets it.
template <int kLanes>
__device__ __forceinline__ float group_sum(float v) {
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

template <int kLanes, int kVecs, class Params, class Epilogue>
__global__ void __launch_bounds__(kRowsInRegistersThreads)
    rows_in_registers_kernel(const float* __restrict__ x, float* __restrict__ y, Params params,
                             Epilogue epilogue, int64_t num_rows, int row_size, float eps) {
  constexpr int kRowsPerWarp = 32 / kLanes;
  const int lane = threadIdx.x % 32;
  const int sub = lane % kLanes;  // this lane's place in its row group
  const int64_t warp = (blockIdx.x * int64_t{blockDim.x} + threadIdx.x) / 32;
  const int64_t warps = gridDim.x * int64_t{blockDim.x} / 32;
  const int vecs = row_size / 4;
  const float inv_n = 1.0f / static_cast<float>(row_size);

  // Every lane of a warp runs the same number of iterations: the shuffles need the full warp.
  for (int64_t base = warp * kRowsPerWarp; base < num_rows; base += warps * kRowsPerWarp) {
    const int64_t row = base + lane / kLanes;
    const bool valid = row < num_rows;
    // Plain loads and stores: 1.3% faster on problem C than with streaming (.cs) hints.
    const float4* xr = reinterpret_cast<const float4*>(x + row * row_size);
    float4 v[kVecs];
#pragma unroll
    for (int j = 0; j < kVecs; ++j)
      v[j] = valid && sub + j * kLanes < vecs ? __ldg(xr + sub + j * kLanes)
                                              : make_float4(0.f, 0.f, 0.f, 0.f);

    const float shift = __shfl_sync(0xffffffffu, v[0].x, lane - sub);  // the row's first element
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < kVecs; ++j)
      if (sub + j * kLanes < vecs) sum += sum_of(minus(v[j], shift));
    const float delta = group_sum<kLanes>(sum) * inv_n;

    float squares = 0.0f;
#pragma unroll
    for (int j = 0; j < kVecs; ++j)
      if (sub + j * kLanes < vecs) {
        const float4 d = minus(minus(v[j], shift), delta);
        squares += (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
      }
    const SegmentStats stats{shift, delta, rsqrtf(group_sum<kLanes>(squares) * inv_n + eps)};

    float4* yr = reinterpret_cast<float4*>(y + row * row_size);
    const auto row_params = params.for_segment(row);
#pragma unroll
    for (int j = 0; j < kVecs; ++j) {
      const int idx = sub + j * kLanes;
      if (valid && idx < vecs)
        yr[idx] = finish4(v[j], stats, row_params.at4(int64_t{idx} * 4), epilogue);
    }
  }
}

inline std::optional<std::string> rows_in_registers_unsupported(const ProblemShape& p,
                                                                const DeviceCaps&) {
  if (p.segment_size % 4 != 0) return "row size is not a multiple of 4 (16-byte rows)";
  if (p.segment_size > kRowsInRegistersMaxRow) return "row longer than 1024 elements";
  return std::nullopt;
}

template <int kLanes, int kVecs, class Params, class Epilogue>
cudaError_t launch_rows_in_registers_as(const ProblemShape& p, const KernelArgs& args,
                                        Params params, Epilogue epilogue) {
  constexpr int64_t kRowsPerBlock = kRowsInRegistersThreads / kLanes;
  // One pass per warp: a grid of every row (0.726 ms on problem C) beat a persistent grid that
  // strides over the rows (0.766 ms), which serialises each warp's loads behind its stores.
  const int64_t blocks = std::min<int64_t>(ceil_div(p.num_segments, kRowsPerBlock), 0x7fffffff);
  rows_in_registers_kernel<kLanes, kVecs>
      <<<static_cast<unsigned>(blocks), kRowsInRegistersThreads, 0, args.stream>>>(
          x_f32(args), y_f32(args), params, epilogue, p.num_segments,
          static_cast<int>(p.segment_size), static_cast<float>(p.eps));
  return cudaGetLastError();
}

// Two float4s per lane where the row allows (two loads in flight per thread: 0.726 against
// 0.766 ms with one on problem C's rows of 64), in the narrowest lane group that holds the
// row; a full warp with up to 8 float4s per lane for the longest rows.
template <class Params, class Epilogue>
cudaError_t launch_rows_in_registers(const ProblemShape& p, const KernelArgs& args, Params params,
                                     Epilogue epilogue) {
  const int64_t vecs = p.segment_size / 4;
  if (vecs <= 4) return launch_rows_in_registers_as<4, 1>(p, args, params, epilogue);
  if (vecs <= 8) return launch_rows_in_registers_as<4, 2>(p, args, params, epilogue);
  if (vecs <= 16) return launch_rows_in_registers_as<8, 2>(p, args, params, epilogue);
  if (vecs <= 32) return launch_rows_in_registers_as<16, 2>(p, args, params, epilogue);
  if (vecs <= 64) return launch_rows_in_registers_as<32, 2>(p, args, params, epilogue);
  if (vecs <= 128) return launch_rows_in_registers_as<32, 4>(p, args, params, epilogue);
  return launch_rows_in_registers_as<32, 8>(p, args, params, epilogue);
}

}  // namespace normbench::kernels
