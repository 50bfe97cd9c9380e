// group_norm_backward.channel_sums: GroupNorm's gradients for the diffusion shapes, NCHW and
// channels-last, in three launches that read x and dy twice (as PyTorch's own kernels do):
//
//   1 channel_partials  per (sample, tile of positions, channel): sums of dy and of dy * xhat
//                       (xhat from the saved mean and rstd, so no cancellation on data far
//                       from zero), 16-byte loads; a tile is a range of positions, all
//                       channels (channels-last) or one channel (NCHW);
//   2 sample_coefficients per sample and chunk of groups: each channel's tiles added in a fixed
//                       order, then per group
//                       a = sum(w dy) / n and b = sum(w dy xhat) / n, folded per channel into
//                       dx = alpha dy + beta (x - mean) + gamma (alpha = rstd w, beta = -rstd^2
//                       b, gamma = -rstd a);
//   3 input_gradient    dx from x, dy and the channel's four coefficients, 16-byte accesses
//                       (channels-last: a thread keeps its channels' coefficients in registers),
//                       the last samples first: channel_partials read them last, so most of
//                       them come from L2; its first block adds the parameter gradients,
//                       dweight[c] = sum over samples of sum(dy xhat), dbias[c] = sum(dy).
// Every sum has a fixed order: the same bits every launch, no atomics, no memset. Launches 2
// and 3 are programmatic dependents of the one before (kernels/families/dependent_launch.cuh),
// so their launch latency overlaps the previous kernel.
//
// Assumes rows of 16-byte vectors: C * element size % 16 == 0 channels-last, H * W * element
// size % 16 == 0 NCHW, and at most kChannelSumsMaxColumns vectors of channels channels-last;
// declines other shapes (the naive kernel takes them).
#include <algorithm>

#include "kernels/device/element_types.cuh"
#include "kernels/device/raw_vectors.cuh"
#include "kernels/families/dependent_launch.cuh"
#include "kernels/families/launch_helpers.hpp"

namespace normbench::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kChannelSumsMaxColumns = kThreads;  // 16-byte vectors of one position's channels

struct Geometry {
  int64_t samples, channels, groups, group_channels, spatial;
  int64_t tiles;           // per sample (channels-last) or per (sample, channel) (NCHW)
  int64_t tile_positions;  // positions per tile
  int64_t block_channels;  // whole groups a block of sample_coefficients takes
  int64_t sm_count;
};

// Groups of up to this many channels: sample_coefficients keeps a block's channels' sums in
// shared memory.
constexpr int64_t kMaxGroupChannels = 2048;

// Workspace: partials[samples][tiles][channels] float2, then coefficients[samples][channels]
// float4 (alpha, beta, gamma, mean) on a 16-byte boundary, then sums[samples][channels] float2.
size_t partials_count(const Geometry& g) {
  return static_cast<size_t>(g.samples * g.tiles * g.channels);
}
size_t coefficients_offset(const Geometry& g) {
  return (partials_count(g) * sizeof(float2) + 15) / 16 * 16;
}
size_t channel_count(const Geometry& g) {
  return static_cast<size_t>(g.samples * g.channels);
}

template <class T>
__device__ __forceinline__ float2 add_vector(float2 s, const RawVector<T>& x,
                                             const RawVector<T>& dy, const float* mean,
                                             const float* rstd) {
  constexpr int E = RawVector<T>::kCount;
  float xv[E], dv[E];
  x.unpack(xv);
  dy.unpack(dv);
#pragma unroll
  for (int e = 0; e < E; ++e) {
    s.x += dv[e];
    s.y = fmaf(dv[e], (xv[e] - mean[e]) * rstd[e], s.y);
  }
  return s;
}

// Channels-last: block (tile, sample) walks its positions; thread (lane, column) owns the E
// channels of vector `column` and positions lane, lane + lanes, ...
template <class T>
__global__ void __launch_bounds__(kThreads)
    channel_partials_nhwc(const T* x, const T* dy, const float* mean, const float* rstd, Geometry g,
                          float2* partials) {
  using V = RawVector<T>;
  constexpr int E = V::kCount;
  __shared__ float2 lane_sums[kThreads * E];
  allow_dependent_launch();
  const int columns = static_cast<int>(g.channels / E);
  const int lanes = kThreads / columns;
  const int column = threadIdx.x % columns, lane = threadIdx.x / columns;
  const int64_t n = blockIdx.y, tile = blockIdx.x;
  float m[E], r[E];
#pragma unroll
  for (int e = 0; e < E; ++e) {
    const int64_t group = n * g.groups + (column * E + e) / g.group_channels;
    m[e] = mean[group];
    r[e] = rstd[group];
  }
  float2 s[E];
#pragma unroll
  for (int e = 0; e < E; ++e) s[e] = make_float2(0.0f, 0.0f);
  const int64_t first = tile * g.tile_positions;
  const int64_t end = min(first + g.tile_positions, g.spatial);
  if (lane < lanes) {
    for (int64_t pos = first + lane; pos < end; pos += lanes) {
      const int64_t at = (n * g.spatial + pos) * g.channels + column * E;
      float xv[E], dv[E];
      V::load_plain(x + at).unpack(xv);
      V::load_plain(dy + at).unpack(dv);
#pragma unroll
      for (int e = 0; e < E; ++e) {
        s[e].x += dv[e];
        s[e].y = fmaf(dv[e], (xv[e] - m[e]) * r[e], s[e].y);
      }
    }
  }
#pragma unroll
  for (int e = 0; e < E; ++e) lane_sums[threadIdx.x * E + e] = s[e];
  __syncthreads();
  // Thread (lane, column) wrote channel column * E + e at lane * C + channel.
  for (int64_t c = threadIdx.x; c < g.channels; c += kThreads) {
    float2 total = make_float2(0.0f, 0.0f);
    for (int l = 0; l < lanes; ++l) {
      total.x += lane_sums[l * g.channels + c].x;
      total.y += lane_sums[l * g.channels + c].y;
    }
    partials[(n * g.tiles + tile) * g.channels + c] = total;
  }
}

// NCHW: block (tile, channel, sample) sums a contiguous range of the channel's positions.
template <class T>
__global__ void __launch_bounds__(kThreads)
    channel_partials_nchw(const T* x, const T* dy, const float* mean, const float* rstd, Geometry g,
                          float2* partials) {
  using V = RawVector<T>;
  constexpr int E = V::kCount;
  __shared__ float2 warp_sums[kThreads / 32];
  allow_dependent_launch();
  const int64_t n = blockIdx.z, c = blockIdx.y, tile = blockIdx.x;
  const int64_t group = n * g.groups + c / g.group_channels;
  float m[E], r[E];
#pragma unroll
  for (int e = 0; e < E; ++e) {
    m[e] = mean[group];
    r[e] = rstd[group];
  }
  const int64_t base = (n * g.channels + c) * g.spatial;
  const int64_t first = tile * g.tile_positions;
  const int64_t end = min(first + g.tile_positions, g.spatial);
  float2 s = make_float2(0.0f, 0.0f);
  for (int64_t pos = first + int64_t{threadIdx.x} * E; pos < end; pos += int64_t{kThreads} * E)
    s = add_vector<T>(s, V::load_plain(x + base + pos), V::load_plain(dy + base + pos), m, r);
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    s.x += __shfl_xor_sync(0xffffffffu, s.x, offset);
    s.y += __shfl_xor_sync(0xffffffffu, s.y, offset);
  }
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float2 total = make_float2(0.0f, 0.0f);
    for (int w = 0; w < kThreads / 32; ++w) {
      total.x += warp_sums[w].x;
      total.y += warp_sums[w].y;
    }
    partials[(n * g.tiles + tile) * g.channels + c] = total;
  }
}

// Block (chunk of whole groups, sample): each channel's tiles added in fixed strided slices and
// the slices in order, then the group terms and the per-channel coefficients.
template <class P>
__global__ void __launch_bounds__(kThreads)
    sample_coefficients(const float2* partials, const P* weight, const float* mean,
                        const float* rstd, Geometry g, float4* coefficients, float2* sums) {
  extern __shared__ float2 shared[];
  allow_dependent_launch();
  wait_for_previous_kernel();
  const int64_t n = blockIdx.y, c_first = int64_t{blockIdx.x} * g.block_channels;
  const int64_t count = min(g.block_channels, g.channels - c_first);
  const int64_t slices = max(int64_t{1}, kThreads / count);
  float2* slice_sums = shared;                                     // [slices][count]
  float2* channel_terms = shared + max(int64_t{kThreads}, count);  // [count]
  for (int64_t i = threadIdx.x; i < slices * count; i += kThreads) {
    const int64_t slice = i / count, c = c_first + i % count;
    const float2* from = partials + n * g.tiles * g.channels + c;
    float2 total = make_float2(0.0f, 0.0f);
    int64_t t = slice;
    // Four loads in flight, added in tile order.
    for (; t + 3 * slices < g.tiles; t += 4 * slices) {
      const float2 a = from[t * g.channels], b = from[(t + slices) * g.channels];
      const float2 c2 = from[(t + 2 * slices) * g.channels];
      const float2 d = from[(t + 3 * slices) * g.channels];
      total.x = (((total.x + a.x) + b.x) + c2.x) + d.x;
      total.y = (((total.y + a.y) + b.y) + c2.y) + d.y;
    }
    for (; t < g.tiles; t += slices) {
      total.x += from[t * g.channels].x;
      total.y += from[t * g.channels].y;
    }
    slice_sums[i] = total;
  }
  __syncthreads();
  for (int64_t local = threadIdx.x; local < count; local += kThreads) {
    float2 total = make_float2(0.0f, 0.0f);
    for (int64_t slice = 0; slice < slices; ++slice) {
      total.x += slice_sums[slice * count + local].x;
      total.y += slice_sums[slice * count + local].y;
    }
    const int64_t c = c_first + local;
    sums[n * g.channels + c] = total;
    const float w = weight ? to_float<P>(weight[c]) : 1.0f;
    channel_terms[local] = make_float2(w * total.x, w * total.y);
  }
  __syncthreads();
  const float inv_n = 1.0f / static_cast<float>(g.group_channels * g.spatial);
  for (int64_t local = threadIdx.x; local < count; local += kThreads) {
    const int64_t group_start = local / g.group_channels * g.group_channels;
    float a = 0.0f, b = 0.0f;
    for (int64_t k = group_start; k < group_start + g.group_channels; ++k) {
      a += channel_terms[k].x;
      b += channel_terms[k].y;
    }
    a *= inv_n;
    b *= inv_n;
    const int64_t c = c_first + local, group = n * g.groups + c / g.group_channels;
    const float m = mean[group], r = rstd[group];
    const float w = weight ? to_float<P>(weight[c]) : 1.0f;
    coefficients[n * g.channels + c] = make_float4(r * w, -r * r * b, -r * a, m);
  }
}

// dweight[c] = sum over samples of sum(dy xhat), dbias[c] = sum(dy), samples in order; run by
// the first block of the dx launch (a launch of its own cost more than the work).
template <class P>
__device__ void parameter_gradients(const float2* sums, const Geometry& g, P* grad_weight,
                                    P* grad_bias) {
  if (!grad_weight && !grad_bias) return;
  for (int64_t c = threadIdx.x; c < g.channels; c += kThreads) {
    float db = 0.0f, dw = 0.0f;
    for (int64_t n = 0; n < g.samples; ++n) {
      db += sums[n * g.channels + c].x;
      dw += sums[n * g.channels + c].y;
    }
    if (grad_weight) grad_weight[c] = from_float<P>(dw);
    if (grad_bias) grad_bias[c] = from_float<P>(db);
  }
}

// NCHW: a 16-byte vector lies in one channel, so one coefficient load serves it. Vectors are
// taken from the last backwards: channel_partials read the last samples last, so they are
// still in L2.
template <class T, class P>
__global__ void __launch_bounds__(kThreads)
    input_gradient_nchw(const T* x, const T* dy, const float4* coefficients, const float2* sums,
                        Geometry g, T* dx, P* grad_weight, P* grad_bias) {
  using V = RawVector<T>;
  constexpr int E = V::kCount;
  wait_for_previous_kernel();
  if (blockIdx.x == 0) parameter_gradients(sums, g, grad_weight, grad_bias);
  const int64_t vectors = g.samples * g.channels * g.spatial / E;
  for (int64_t v = int64_t{blockIdx.x} * kThreads + threadIdx.x; v < vectors;
       v += int64_t{gridDim.x} * kThreads) {
    const int64_t i = (vectors - 1 - v) * E;
    float xv[E], dv[E], out[E];
    V::load_streaming(x + i).unpack(xv);
    V::load_streaming(dy + i).unpack(dv);
    const float4 k = __ldg(coefficients + i / g.spatial);  // (n, c) of the vector
#pragma unroll
    for (int e = 0; e < E; ++e) out[e] = fmaf(k.x, dv[e], fmaf(k.y, xv[e] - k.w, k.z));
    V::pack(out).store_streaming(dx + i);
  }
}

// Channels-last: block (range of positions, sample), thread (lane, column) as in
// channel_partials_nhwc, so a thread's E channels and their coefficients stay in registers.
// Samples and ranges are taken from the last backwards: channel_partials read the last samples
// last, so they are still in L2.
template <class T, class P>
__global__ void __launch_bounds__(kThreads)
    input_gradient_nhwc(const T* x, const T* dy, const float4* coefficients, const float2* sums,
                        Geometry g, int64_t block_positions, T* dx, P* grad_weight, P* grad_bias) {
  using V = RawVector<T>;
  constexpr int E = V::kCount;
  wait_for_previous_kernel();
  if (blockIdx.x == 0 && blockIdx.y == 0) parameter_gradients(sums, g, grad_weight, grad_bias);
  const int columns = static_cast<int>(g.channels / E);
  const int lanes = kThreads / columns;
  const int column = threadIdx.x % columns, lane = threadIdx.x / columns;
  if (lane >= lanes) return;
  const int64_t n = g.samples - 1 - blockIdx.y;
  float4 k[E];
#pragma unroll
  for (int e = 0; e < E; ++e) k[e] = __ldg(coefficients + n * g.channels + column * E + e);
  const int64_t first = int64_t{gridDim.x - 1 - blockIdx.x} * block_positions;
  const int64_t end = min(first + block_positions, g.spatial);
#pragma unroll 4
  for (int64_t pos = first + lane; pos < end; pos += lanes) {
    const int64_t i = (n * g.spatial + pos) * g.channels + column * E;
    float xv[E], dv[E], out[E];
    V::load_streaming(x + i).unpack(xv);
    V::load_streaming(dy + i).unpack(dv);
#pragma unroll
    for (int e = 0; e < E; ++e) out[e] = fmaf(k[e].x, dv[e], fmaf(k[e].y, xv[e] - k[e].w, k[e].z));
    V::pack(out).store_streaming(dx + i);
  }
}

Geometry geometry(const ProblemShape& p, const DeviceCaps& device) {
  Geometry g{p.shape[0], p.channels, p.groups, p.channels / p.groups,       p.spatial,
             1,          p.spatial,  0,        std::max(device.sm_count, 1)};
  // Whole groups, about 16 channels a block: 16 threads a channel add a sample's 64 tiles in
  // one round of four loads each, where 64 channels a block took four rounds.
  g.block_channels = g.group_channels * std::max<int64_t>(1, 16 / g.group_channels);
  // About four blocks per SM in the first launch; a tile keeps at least 64 positions.
  const int64_t wanted = int64_t{4} * std::max(device.sm_count, 1);
  const int64_t per_tile_blocks = p.channels_last() ? g.samples : g.samples * g.channels;
  g.tiles = std::clamp<int64_t>(ceil_div(wanted, per_tile_blocks), 1,
                                std::max<int64_t>(1, g.spatial / 64));
  g.tile_positions = ceil_div(g.spatial, g.tiles);
  if (!p.channels_last()) {
    // NCHW tiles start on 16-byte vectors.
    const int64_t e = 16 / dtype_bytes(p.dtype);
    g.tile_positions = ceil_div(g.tile_positions, e) * e;
  }
  g.tiles = ceil_div(g.spatial, g.tile_positions);
  return g;
}

template <class T, class P>
cudaError_t launch(const ProblemShape& p, const Geometry& g, const KernelArgs& args) {
  auto* workspace = static_cast<char*>(args.workspace);
  auto* partials = reinterpret_cast<float2*>(workspace);
  auto* coefficients = reinterpret_cast<float4*>(workspace + coefficients_offset(g));
  auto* sums = reinterpret_cast<float2*>(reinterpret_cast<char*>(coefficients) +
                                         channel_count(g) * sizeof(float4));
  const auto* x = static_cast<const T*>(args.x);
  const auto* dy = static_cast<const T*>(args.dy);
  const auto* mean = static_cast<const float*>(args.mean);
  const auto* rstd = static_cast<const float*>(args.rstd);
  const auto* weight = static_cast<const P*>(args.weight);
  if (p.channels_last())
    channel_partials_nhwc<T>
        <<<dim3(static_cast<unsigned>(g.tiles), static_cast<unsigned>(g.samples)), kThreads, 0,
           args.stream>>>(x, dy, mean, rstd, g, partials);
  else
    channel_partials_nchw<T>
        <<<dim3(static_cast<unsigned>(g.tiles), static_cast<unsigned>(g.channels),
                static_cast<unsigned>(g.samples)),
           kThreads, 0, args.stream>>>(x, dy, mean, rstd, g, partials);
  const size_t shared =
      static_cast<size_t>(std::max<int64_t>(kThreads, g.block_channels) + g.block_channels) *
      sizeof(float2);
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) return error;
  error = launch_dependent(sample_coefficients<P>,
                           dim3(static_cast<unsigned>(ceil_div(g.channels, g.block_channels)),
                                static_cast<unsigned>(g.samples)),
                           kThreads, shared, args.stream, partials, weight, mean, rstd, g,
                           coefficients, sums);
  if (error != cudaSuccess) return error;
  auto* dx = static_cast<T*>(args.y);
  auto* grad_weight = static_cast<P*>(args.grad_weight);
  auto* grad_bias = static_cast<P*>(args.grad_bias);
  if (p.channels_last()) {
    // About eight blocks an SM over all samples, each thread taking at least eight positions
    // (a block loads its coefficients once: 16 bytes a channel).
    const int64_t lanes = kThreads / (g.channels * int64_t{sizeof(T)} / 16);
    const int64_t per_sample = std::max<int64_t>(1, ceil_div(8 * g.sm_count, g.samples));
    const int64_t positions =
        std::max(ceil_div(g.spatial, std::min(per_sample, g.spatial)), 8 * lanes);
    return launch_dependent(input_gradient_nhwc<T, P>,
                            dim3(static_cast<unsigned>(ceil_div(g.spatial, positions)),
                                 static_cast<unsigned>(g.samples)),
                            kThreads, 0, args.stream, x, dy, coefficients, sums, g, positions, dx,
                            grad_weight, grad_bias);
  }
  const int64_t vectors = g.samples * g.channels * g.spatial / (16 / int64_t{sizeof(T)});
  const auto blocks = static_cast<unsigned>(std::min<int64_t>(ceil_div(vectors, kThreads), 65536));
  return launch_dependent(input_gradient_nchw<T, P>, dim3(blocks), kThreads, 0, args.stream, x, dy,
                          coefficients, sums, g, dx, grad_weight, grad_bias);
}

KernelPlan plan(const ProblemShape& p, const DeviceCaps& device) {
  const int64_t size = dtype_bytes(p.dtype);
  if (p.channels_last() &&
      (p.channels * size % 16 != 0 || p.channels * size / 16 > kChannelSumsMaxColumns))
    return KernelPlan::declined("channels-last rows must be 16-byte vectors, at most " +
                                std::to_string(kChannelSumsMaxColumns) + " of them");
  if (!p.channels_last() && p.spatial * size % 16 != 0)
    return KernelPlan::declined("NCHW channels must be 16-byte vectors of positions");
  if (p.channels / p.groups > kMaxGroupChannels)
    return KernelPlan::declined("groups of more than " + std::to_string(kMaxGroupChannels) +
                                " channels: their sums exceed shared memory");
  if (p.shape[0] > 65535 || (!p.channels_last() && p.channels > 65535))
    return KernelPlan::declined("more than 65535 samples or NCHW channels (grid dimensions)");
  const Geometry g = geometry(p, device);
  KernelPlan plan;
  plan.workspace_bytes =
      coefficients_offset(g) + channel_count(g) * (sizeof(float4) + sizeof(float2));
  plan.launch = [p, g](const KernelArgs& args) {
    return with_element_types(p, [&](auto data, auto param) {
      using T = typename decltype(data)::type;
      using P = typename decltype(param)::type;
      return launch<T, P>(p, g, args);
    });
  };
  return plan;
}

}  // namespace

NORMBENCH_REGISTER_KERNEL(planned_variant(
    Op::group_norm_backward, "group_norm_backward.channel_sums",
    "per-channel sums of dy and dy xhat in fixed-order tiles, then dx from four coefficients a "
    "channel: x and dy read twice (the second time mostly from L2), three launches, no atomics",
    plan, Accepts::everything()));
}  // namespace normbench::kernels
