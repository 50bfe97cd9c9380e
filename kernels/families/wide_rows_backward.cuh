// The backward of LLM rows held in registers: layer_norm_backward, rms_norm_backward and
// add_rms_norm_backward over rows of up to 8192 elements that are whole 16-byte vectors, bfloat16,
// float16 or float32 data, the weight in the data's type or float32. Two kernels a launch, no
// atomics (the same output bits every launch):
//
//   wide_rows_backward_kernel   a fixed grid (families/wide_rows_backward_plan.hpp) walks the rows,
//                               block b taking rows b, b + blocks, ...; each thread holds its 16
//                               columns of x and dy as loaded 16-byte vectors, and the next row's
//                               are loaded while this row reduces, so the SM keeps loads in
//                               flight across the reductions. With the saved statistics,
//                               xhat = (x - mean) rstd and g = dy w: the block sums of g and
//                               g xhat (RMSNorm: g xhat alone) in one reduction, then
//                               dx = rstd (g - mean(g) - xhat mean(g xhat)) rounded once to T;
//                               add_rms_norm_backward (kAddsDsOut) adds ds_out before that
//                               rounding, the row's ds_out loaded before the block's reduction
//                               so that its latency hides behind it.
//                               x and dy are read once, dx written once (evict-first both ways,
//                               so the weight and the partials below stay in L2). The thread's
//                               columns never change, so it keeps their dweight (sum dy xhat) and
//                               dbias (sum dy) in float registers across its rows and writes them
//                               once, as the block's partial, to workspace[block][column].
//   wide_rows_backward_columns  sums the blocks' partials of each column in a fixed order (in
//                               double: 8 strided slices of the blocks, then the 8 in order) and
//                               rounds once to the parameters' type.
//
// The weight is read once per thread, before the rows, and kept in registers as loaded.
// Assumes row size % (16 / sizeof(T)) == 0 and 16-byte aligned tensors and workspace, which the
// plan checks or the registry guarantees.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/device/element_types.cuh"
#include "kernels/device/raw_vectors.cuh"
#include "kernels/families/launch_helpers.hpp"
#include "kernels/families/wide_rows.cuh"
#include "kernels/families/wide_rows_backward_plan.hpp"

namespace normbench::kernels {

// Which parameter gradients a launch writes: none (no weight), dweight, or dweight and dbias.
enum WideRowsBackwardGrads : int { kNoParamGrads = 0, kWeightGrad = 1, kWeightAndBiasGrads = 2 };

template <class T, class P>
struct WideRowsBackwardTensors {
  const T* x;
  const T* dy;
  const P* weight;    // null: 1
  const float* mean;  // null for RMSNorm
  const float* rstd;
  T* dx;
  float* partials;  // [blocks][columns] of dweight, then [blocks][columns] of dbias
  const T* ds_out;  // add_rms_norm_backward's, added to dx; else null
};

// Sum over the block of one value (RMSNorm) or two (LayerNorm), every thread getting the same
// bits. `partials` alternates between two buffers row by row: the buffer a row reads is written
// again two rows later, after a barrier that every thread passes only once it has read it.
template <bool kPair>
__device__ __forceinline__ float2 wide_rows_backward_block_sum(float2 v, float2* partials) {
  const int lane = threadIdx.x % 32;
  if constexpr (kPair) v.x = wide_rows_warp_sum(v.x);
  v.y = wide_rows_warp_sum(v.y);
  if (lane == 0) partials[threadIdx.x / 32] = v;
  __syncthreads();
  const bool warp_exists = lane < static_cast<int>(blockDim.x / 32);
  float2 total = make_float2(0.0f, 0.0f);
  if constexpr (kPair) total.x = wide_rows_warp_sum(warp_exists ? partials[lane].x : 0.0f);
  total.y = wide_rows_warp_sum(warp_exists ? partials[lane].y : 0.0f);
  return total;
}

template <class T, class P, bool kCentered, bool kAddsDsOut, int kGrads>
__global__ void __launch_bounds__(kWideRowsBackwardMaxThreads)
    wide_rows_backward_kernel(WideRowsBackwardTensors<T, P> t, int row_vectors, int64_t rows,
                              float inv_n) {
  using V = RawVector<T>;
  constexpr int kCount = V::kCount;
  constexpr int kVectors = kWideRowsBackwardColumns / kCount;
  __shared__ float2 partials[2][kWideRowsBackwardMaxThreads / 32];
  const int64_t columns = int64_t{row_vectors} * kCount;
  auto vector_index = [&](int j) { return static_cast<int>(threadIdx.x + j * blockDim.x); };
  auto row_vector_at = [&](int64_t row, int j) {
    return row * columns + int64_t{vector_index(j)} * kCount;
  };
  auto load_row = [&](int64_t row, V(&x)[kVectors], V(&dy)[kVectors]) {
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      const int64_t at = row_vector_at(row, j);
      const bool owned = vector_index(j) < row_vectors;
      x[j].raw = owned ? V::load_streaming(t.x + at).raw : make_uint4(0, 0, 0, 0);
      dy[j].raw = owned ? V::load_streaming(t.dy + at).raw : make_uint4(0, 0, 0, 0);
    }
  };

  int64_t row = blockIdx.x;  // the grid has at most one block per row
  V x_next[kVectors], dy_next[kVectors];
  load_row(row, x_next, dy_next);
  float mean_next = kCentered ? __ldg(t.mean + row) : 0.0f;
  float rstd_next = __ldg(t.rstd + row);

  RawParams<kCount, P> weight[kVectors];
#pragma unroll
  for (int j = 0; j < kVectors; ++j)
    if (vector_index(j) < row_vectors) weight[j].load(t.weight, int64_t{vector_index(j)} * kCount);

  float weight_grad[kVectors][kCount] = {};
  float bias_grad[kVectors][kCount] = {};
  int parity = 0;
  for (; row < rows; row += gridDim.x) {
    V x[kVectors], dy[kVectors];
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      x[j] = x_next[j];
      dy[j] = dy_next[j];
    }
    const float m = mean_next, r = rstd_next;
    if (row + gridDim.x < rows) {
      load_row(row + gridDim.x, x_next, dy_next);
      if constexpr (kCentered) mean_next = __ldg(t.mean + row + gridDim.x);
      rstd_next = __ldg(t.rstd + row + gridDim.x);
    }
    [[maybe_unused]] V carried[kVectors];  // ds_out of this row: registers only where kAddsDsOut
    if constexpr (kAddsDsOut) {
#pragma unroll
      for (int j = 0; j < kVectors; ++j)
        carried[j].raw = vector_index(j) < row_vectors
                             ? V::load_streaming(t.ds_out + row_vector_at(row, j)).raw
                             : make_uint4(0, 0, 0, 0);
    }

    float g_sum = 0.0f, g_xhat_sum = 0.0f;
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      if (vector_index(j) >= row_vectors) continue;
      float e[kCount], d[kCount], w[kCount];
      x[j].unpack(e);
      dy[j].unpack(d);
      weight[j].unpack(t.weight, w, 1.0f);
#pragma unroll
      for (int k = 0; k < kCount; ++k) {
        const float xhat = (e[k] - m) * r;
        const float g = d[k] * w[k];
        g_sum += g;
        g_xhat_sum = fmaf(g, xhat, g_xhat_sum);
        if constexpr (kGrads >= kWeightGrad)
          weight_grad[j][k] = fmaf(d[k], xhat, weight_grad[j][k]);
        if constexpr (kGrads >= kWeightAndBiasGrads) bias_grad[j][k] += d[k];
      }
    }
    const float2 sums =
        wide_rows_backward_block_sum<kCentered>(make_float2(g_sum, g_xhat_sum), partials[parity]);
    parity ^= 1;
    const float g_mean = sums.x * inv_n;  // 0 for RMSNorm
    const float g_xhat_mean = sums.y * inv_n;

#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      if (vector_index(j) >= row_vectors) continue;
      float e[kCount], d[kCount], w[kCount];
      [[maybe_unused]] float c[kCount];
      x[j].unpack(e);
      dy[j].unpack(d);
      weight[j].unpack(t.weight, w, 1.0f);
      if constexpr (kAddsDsOut) carried[j].unpack(c);
#pragma unroll
      for (int k = 0; k < kCount; ++k) {
        const float xhat = (e[k] - m) * r;
        e[k] = r * ((d[k] * w[k] - g_mean) - xhat * g_xhat_mean);
        if constexpr (kAddsDsOut) e[k] += c[k];
      }
      V::pack(e).store_streaming(t.dx + row_vector_at(row, j));
    }
  }

  if constexpr (kGrads >= kWeightGrad) {
    auto store_partial = [&](float* to, float(&sums)[kVectors][kCount]) {
#pragma unroll
      for (int j = 0; j < kVectors; ++j) {
        if (vector_index(j) >= row_vectors) continue;
        auto* out = reinterpret_cast<float4*>(to + int64_t{vector_index(j)} * kCount);
#pragma unroll
        for (int k = 0; k < kCount / 4; ++k)
          out[k] = make_float4(sums[j][4 * k], sums[j][4 * k + 1], sums[j][4 * k + 2],
                               sums[j][4 * k + 3]);
      }
    };
    store_partial(t.partials + int64_t{blockIdx.x} * columns, weight_grad);
    if constexpr (kGrads >= kWeightAndBiasGrads)
      store_partial(t.partials + (int64_t{gridDim.x} + blockIdx.x) * columns, bias_grad);
  }
}

constexpr int kWideRowsBackwardColumnSlices = 8;

// Column blockIdx.x * 32 + threadIdx.x of dweight (blockIdx.y 0) or dbias (1): the sum of the
// `blocks` partials in a fixed order, rounded once to P.
template <class P>
__global__ void __launch_bounds__(32 * kWideRowsBackwardColumnSlices)
    wide_rows_backward_columns(const float* partials, int blocks, int64_t columns, P* grad_weight,
                               P* grad_bias) {
  __shared__ double slices[kWideRowsBackwardColumnSlices][32];
  const int64_t j = int64_t{blockIdx.x} * 32 + threadIdx.x;
  const float* from = partials + int64_t{blockIdx.y} * blocks * columns;
  double sum = 0.0;
  if (j < columns)
    for (int b = threadIdx.y; b < blocks; b += kWideRowsBackwardColumnSlices)
      sum += from[int64_t{b} * columns + j];
  slices[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y != 0 || j >= columns) return;
  double total = 0.0;
#pragma unroll
  for (int s = 0; s < kWideRowsBackwardColumnSlices; ++s) total += slices[s][threadIdx.x];
  (blockIdx.y == 0 ? grad_weight : grad_bias)[j] = from_float<P>(static_cast<float>(total));
}

template <bool kCentered, bool kAddsDsOut>
cudaError_t launch_wide_rows_backward(const ProblemShape& p, const WideRowsBackwardPlan& plan,
                                      int sm_count, const KernelArgs& args) {
  return with_element_types(p, [&](auto data, auto param) {
    using T = typename decltype(data)::type;
    using P = typename decltype(param)::type;
    const WideRowsBackwardTensors<T, P> t{
        static_cast<const T*>(args.x),        static_cast<const T*>(args.dy),
        static_cast<const P*>(args.weight),   static_cast<const float*>(args.mean),
        static_cast<const float*>(args.rstd), static_cast<T*>(args.y),
        static_cast<float*>(args.workspace),  static_cast<const T*>(args.ds_out)};
    const float inv_n = 1.0f / static_cast<float>(p.segment_size);
    auto run = [&](auto kernel, int grads) -> cudaError_t {
      // As many blocks as fit at once (each walks its rows to the end: a second wave would
      // double the time), at most the plan's, for which the workspace was sized.
      int per_sm = 0;
      const cudaError_t error =
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, plan.threads, 0);
      if (error != cudaSuccess) return error;
      const int blocks = std::clamp(per_sm * sm_count, 1, plan.max_blocks);
      kernel<<<blocks, plan.threads, 0, args.stream>>>(t, plan.row_vectors, p.num_segments, inv_n);
      if (grads > 0) {
        const dim3 grid(static_cast<unsigned>(ceil_div(p.param_size, 32)),
                        static_cast<unsigned>(grads));
        wide_rows_backward_columns<P>
            <<<grid, dim3(32, kWideRowsBackwardColumnSlices), 0, args.stream>>>(
                t.partials, blocks, p.param_size, static_cast<P*>(args.grad_weight),
                static_cast<P*>(args.grad_bias));
      }
      return cudaGetLastError();
    };
    if (!p.affine)
      return run(wide_rows_backward_kernel<T, P, kCentered, kAddsDsOut, kNoParamGrads>, 0);
    if constexpr (kCentered)
      if (p.has_bias)
        return run(wide_rows_backward_kernel<T, P, kCentered, kAddsDsOut, kWeightAndBiasGrads>, 2);
    return run(wide_rows_backward_kernel<T, P, kCentered, kAddsDsOut, kWeightGrad>, 1);
  });
}

// The plan of a `<op>_backward.row_in_registers` variant: declined with the plan's reason, or
// the two kernels with the workspace of the blocks' partials. kCentered: LayerNorm's mean and
// dbias; kAddsDsOut: add_rms_norm_backward's ds_out added to dx.
template <bool kCentered, bool kAddsDsOut = false>
KernelPlan plan_wide_rows_backward_variant(const ProblemShape& p, const DeviceCaps& device) {
  const WideRowsBackwardPlan rows = plan_wide_rows_backward(p, device.sm_count);
  if (!rows.unsupported.empty()) return KernelPlan::declined(rows.unsupported);
  KernelPlan plan;
  plan.workspace_bytes = rows.workspace_bytes;
  const int sm_count = std::max(device.sm_count, 1);
  plan.launch = [p, rows, sm_count](const KernelArgs& args) {
    return launch_wide_rows_backward<kCentered, kAddsDsOut>(p, rows, sm_count, args);
  };
  return plan;
}

}  // namespace normbench::kernels
