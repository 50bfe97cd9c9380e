// The baseline of the backward ops, written to be obviously right rather than fast: two kernels
// a launch, float32 arithmetic throughout, no atomics (the same output bits every launch).
//
//   naive_dx_kernel      one block of 256 threads per segment. It uses the saved statistics
//                        (args.mean, args.rstd) rather than recomputing them; pass 1 sums g and
//                        g * xhat (g = dy * weight, xhat = (x - mean) * rstd) per thread, then
//                        over the block with a shared-memory tree; pass 2 writes
//                        dx = rstd * (g - mean(g) - xhat * mean(g * xhat)) (RMSNorm: no mean(g)
//                        term, no mean subtracted; add_rms_norm_backward adds ds_out, so
//                        that dx is the gradient of the forward's x and residual).
//   naive_column_kernel  the rows' parameters (LayerNorm, RMSNorm): one thread per column j,
//                        looping over the rows in order: dweight[j] = sum dy * xhat and
//                        dbias[j] = sum dy.
//   naive_channel_kernel GroupNorm's parameters: one block per channel, each thread summing the
//                        channel's elements it strides over, then a shared-memory tree.
//
// Supports every shape and format: T the data type, P the parameters' type (the sums are
// rounded to P once, at the end), NCHW or channels-last groups.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>

#include "kernels/device/element_types.cuh"
#include "kernels/device/segment_access.cuh"
#include "kernels/families/launch_helpers.hpp"
#include "kernels/families/naive_kernel.cuh"

namespace normbench::kernels {

// Blocks of kNaiveThreads, whose float sums are naive_block_sum's (naive_kernel.cuh).
constexpr int kNaiveBackwardThreads = kNaiveThreads;

// ds_out: null, or (add_rms_norm_backward) a gradient added to dx in float32 before dx's one
// rounding to T.
template <class T, bool kCentered, class Segments, class Params>
__global__ void __launch_bounds__(kNaiveBackwardThreads)
    naive_dx_kernel(const T* x, const T* dy, const T* ds_out, const float* mean, const float* rstd,
                    T* dx, Params params, int64_t segment_size, Segments segments) {
  __shared__ float scratch[kNaiveBackwardThreads];
  const int64_t segment = blockIdx.x;
  const auto xs = segments.segment(x, segment, segment_size);
  const auto dys = segments.segment(dy, segment, segment_size);
  const auto dxs = segments.segment(dx, segment, segment_size);
  const auto weights = params.for_segment(segment);
  const float m = kCentered ? mean[segment] : 0.0f;
  const float r = rstd[segment];

  float g_sum = 0.0f, g_xhat_sum = 0.0f;
  for (int64_t i = threadIdx.x; i < segment_size; i += kNaiveBackwardThreads) {
    const float xhat = (to_float<T>(xs[i]) - m) * r;
    const float g = to_float<T>(dys[i]) * weights.at(i).x;
    g_sum += g;
    g_xhat_sum += g * xhat;
  }
  const auto n = static_cast<float>(segment_size);
  const float g_mean = kCentered ? naive_block_sum(g_sum, scratch) / n : 0.0f;
  const float g_xhat_mean = naive_block_sum(g_xhat_sum, scratch) / n;

  for (int64_t i = threadIdx.x; i < segment_size; i += kNaiveBackwardThreads) {
    const float xhat = (to_float<T>(xs[i]) - m) * r;
    const float g = to_float<T>(dys[i]) * weights.at(i).x;
    const float carried =
        ds_out ? to_float<T>(segments.segment(ds_out, segment, segment_size)[i]) : 0.0f;
    dxs[i] = from_float<T>(r * (g - g_mean - xhat * g_xhat_mean) + carried);
  }
}

// Row j of every row: x and dy are (rows, columns), one statistic per row. grad_bias may be
// null (no bias).
template <class T, class P, bool kCentered>
__global__ void __launch_bounds__(kNaiveBackwardThreads)
    naive_column_kernel(const T* x, const T* dy, const float* mean, const float* rstd,
                        P* grad_weight, P* grad_bias, int64_t rows, int64_t columns) {
  const int64_t j = int64_t{blockIdx.x} * kNaiveBackwardThreads + threadIdx.x;
  if (j >= columns) return;
  float w_sum = 0.0f, b_sum = 0.0f;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = r * columns + j;
    const float m = kCentered ? mean[r] : 0.0f;
    const float d = to_float<T>(dy[i]);
    w_sum += d * ((to_float<T>(x[i]) - m) * rstd[r]);
    b_sum += d;
  }
  grad_weight[j] = from_float<P>(w_sum);
  if (grad_bias) grad_bias[j] = from_float<P>(b_sum);
}

// Channel blockIdx.x of GroupNorm's x (N, C, spatial), NCHW or channels-last; one statistic per
// (sample, group). grad_bias may be null.
template <class T, class P>
__global__ void __launch_bounds__(kNaiveBackwardThreads)
    naive_channel_kernel(const T* x, const T* dy, const float* mean, const float* rstd,
                         P* grad_weight, P* grad_bias, int64_t samples, int64_t channels,
                         int64_t spatial, int64_t groups, bool channels_last) {
  __shared__ float scratch[kNaiveBackwardThreads];
  const int64_t c = blockIdx.x;
  const int64_t group = c / (channels / groups);
  float w_sum = 0.0f, b_sum = 0.0f;
  for (int64_t k = threadIdx.x; k < samples * spatial; k += kNaiveBackwardThreads) {
    const int64_t n = k / spatial, s = k % spatial;
    const int64_t i =
        channels_last ? (n * spatial + s) * channels + c : (n * channels + c) * spatial + s;
    const int64_t segment = n * groups + group;
    const float d = to_float<T>(dy[i]);
    w_sum += d * ((to_float<T>(x[i]) - mean[segment]) * rstd[segment]);
    b_sum += d;
  }
  w_sum = naive_block_sum(w_sum, scratch);
  b_sum = naive_block_sum(b_sum, scratch);
  if (threadIdx.x != 0) return;
  grad_weight[c] = from_float<P>(w_sum);
  if (grad_bias) grad_bias[c] = from_float<P>(b_sum);
}

inline std::optional<std::string> naive_backward_unsupported(const ProblemShape& p,
                                                             const DeviceCaps&) {
  const int64_t most = std::numeric_limits<int>::max();
  if (p.num_segments > most) return "more than 2^31-1 segments (one block each)";
  if (p.grouped() && p.channels > most) return "more than 2^31-1 channels (one block each)";
  return std::nullopt;
}

// dx, then the parameters' gradients (when affine), for any backward op and format. ds_out is
// only add_rms_norm_backward's, a row op.
// The signature of a variant's launch: each op's naive.cu registers it as it is.
inline cudaError_t launch_naive_backward(const ProblemShape& p, const DeviceCaps&,
                                         const KernelArgs& args) {
  return with_element_types(p, [&](auto data, auto param) {
    using T = typename decltype(data)::type;
    using P = typename decltype(param)::type;
    const auto* x = static_cast<const T*>(args.x);
    const auto* dy = static_cast<const T*>(args.dy);
    const auto* ds_out = static_cast<const T*>(args.ds_out);
    const auto* mean = static_cast<const float*>(args.mean);
    const auto* rstd = static_cast<const float*>(args.rstd);
    auto* dx = static_cast<T*>(args.y);
    auto* grad_weight = static_cast<P*>(args.grad_weight);
    auto* grad_bias = static_cast<P*>(args.grad_bias);
    const auto segments = static_cast<unsigned>(p.num_segments);
    const cudaStream_t stream = args.stream;
    constexpr int kThreads = kNaiveBackwardThreads;
    const auto* weight = static_cast<const P*>(args.weight);
    if (p.grouped()) {
      // The weight alone (no bias): at(pos).x is the weight of the position's channel.
      const int64_t per_group = p.channels / p.groups;
      if (p.channels_last())
        naive_dx_kernel<T, true><<<segments, kThreads, 0, stream>>>(
            x, dy, nullptr, mean, rstd, dx,
            ChannelsLastParams<P>{weight, nullptr, p.groups, per_group, p.spatial}, p.segment_size,
            channels_last_segments(p));
      else
        naive_dx_kernel<T, true><<<segments, kThreads, 0, stream>>>(
            x, dy, nullptr, mean, rstd, dx,
            TypedChannelParams<P>{weight, nullptr, p.groups, per_group, p.spatial}, p.segment_size,
            ContiguousSegments{});
      if (p.affine)
        naive_channel_kernel<T, P><<<static_cast<unsigned>(p.channels), kThreads, 0, stream>>>(
            x, dy, mean, rstd, grad_weight, grad_bias, p.shape.at(0), p.channels, p.spatial,
            p.groups, p.channels_last());
      return cudaGetLastError();
    }
    const TypedRowParams<P> weights{weight, nullptr};
    const int64_t rows = p.num_segments;
    const auto column_blocks = static_cast<unsigned>(ceil_div(p.param_size, kThreads));
    if (p.centered()) {
      naive_dx_kernel<T, true><<<segments, kThreads, 0, stream>>>(
          x, dy, ds_out, mean, rstd, dx, weights, p.segment_size, ContiguousSegments{});
      if (p.affine)
        naive_column_kernel<T, P, true><<<column_blocks, kThreads, 0, stream>>>(
            x, dy, mean, rstd, grad_weight, grad_bias, rows, p.param_size);
    } else {
      naive_dx_kernel<T, false><<<segments, kThreads, 0, stream>>>(
          x, dy, ds_out, mean, rstd, dx, weights, p.segment_size, ContiguousSegments{});
      if (p.affine)
        naive_column_kernel<T, P, false><<<column_blocks, kThreads, 0, stream>>>(
            x, dy, mean, rstd, grad_weight, grad_bias, rows, p.param_size);
    }
    return cudaGetLastError();
  });
}

}  // namespace normbench::kernels
