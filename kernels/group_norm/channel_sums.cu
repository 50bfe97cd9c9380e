// group_norm.channel_sums: channels-last GroupNorm of the mid-sized diffusion shapes (a few to
// a few tens of MB), in three launches that read x twice, the second time mostly from L2:
//
//   1 group_partials      block (consecutive tiles of positions, sample), thread (lane,
//                         column): the E channels of 16-byte vector `column` at kPositions
//                         positions of each tile, all loaded before any is used; sums of
//                         (x - shift) and (x - shift)^2 per channel in float (shift = the
//                         group's element at position 0, which keeps float32 data such as
//                         1000 + N(0,1) at its tolerance), then per group, into
//                         partials[sample][block][group]; it lets the next launch start only
//                         when it is done (see its end);
//   2 group_coefficients  a warp per (sample, group): the blocks' partials added in double in
//                         a fixed order, mean and rstd, then per channel scale = rstd w,
//                         offset = b - mean scale and the shift;
//   3 normalize_channels_last
//                         y = epilogue((x - shift) scale + offset) over the same blocks of
//                         tiles, samples and tiles last first: launch 1 read them last, so they
//                         are still in L2.
// Launches 2 and 3 are programmatic dependents of the one before (dependent_launch.cuh); launch
// 3 loads its x before it waits. Every sum has a fixed order: the same bits every launch, no
// atomics, no memset. Where x fits in L2 (50 MB on the H100), DRAM moves x once and y once, as
// a one-pass kernel's would, without holding a sample in registers or a grid barrier.
//
// Assumes channels-last x and y of 16-byte aligned rows (C * element size % 16 == 0), at most
// kThreads vectors a row; declines NCHW and other shapes.
#include <algorithm>

#include "kernels/device/device_math.cuh"
#include "kernels/device/element_types.cuh"
#include "kernels/device/raw_vectors.cuh"
#include "kernels/families/dependent_launch.cuh"
#include "kernels/families/launch_helpers.hpp"

namespace normbench::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxColumns = kThreads;  // 16-byte vectors of one position's channels
// Positions a thread takes, all loaded before any is used: both passes wait on memory, so
// every load of a thread is in flight at once.
constexpr int kPositions = 8;

struct Geometry {
  int64_t samples, channels, groups, group_channels, spatial;
  int64_t tiles;   // per sample, lanes * kPositions positions each
  int64_t rounds;  // consecutive tiles a block takes
  int64_t blocks;  // per sample: tiles / rounds, rounded up
  float eps;
};

// Blocks of both passes resident on an SM at once: __launch_bounds__ keeps their registers
// at most 85 a thread (16-bit data needs about 80), so that every block of a grid cut for
// this many per SM runs in one wave.
constexpr int kBlocksPerSm = 3;

// Workspace: partials[samples][blocks][groups] float2, then coefficients[samples][channels] float4
// (scale, offset, shift, unused) on a 16-byte boundary.
size_t coefficients_offset(const Geometry& g) {
  return (static_cast<size_t>(g.samples * g.blocks * g.groups) * sizeof(float2) + 15) / 16 * 16;
}
size_t workspace_bytes(const Geometry& g) {
  return coefficients_offset(g) + static_cast<size_t>(g.samples * g.channels) * sizeof(float4);
}

// The group's element at position 0 of sample n: the shift of channel `channel`'s sums.
template <class T>
__device__ __forceinline__ float group_shift(const T* x, const Geometry& g, int64_t n,
                                             int channel) {
  const int group_channels = static_cast<int>(g.group_channels);
  return to_float<T>(
      __ldg(x + n * g.spatial * g.channels + channel / group_channels * group_channels));
}

// Thread (lane, column) of the block of tile `tile`: vector `column` of a position's channels
// at positions first + lane, first + lane + lanes, ...
template <class T>
struct BlockTile {
  int columns, lanes, column, lane;
  int64_t first, end;

  __device__ BlockTile(const Geometry& g, int64_t tile) {
    columns = static_cast<int>(g.channels / RawVector<T>::kCount);
    lanes = kThreads / columns;
    column = static_cast<int>(threadIdx.x) % columns;
    lane = static_cast<int>(threadIdx.x) / columns;
    first = tile * lanes * kPositions;
    end = min(first + int64_t{lanes} * kPositions, g.spatial);
  }
  __device__ bool active() const { return lane < lanes; }
  __device__ bool holds(int j) const { return active() && position(j) < end; }
  __device__ int64_t position(int j) const { return first + lane + int64_t{j} * lanes; }
  // Where this thread's vector of its j-th position in sample n starts.
  __device__ int64_t at(const Geometry& g, int64_t n, int j) const {
    return (n * g.spatial + position(j)) * g.channels + column * RawVector<T>::kCount;
  }
};

template <class T>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    group_partials(const T* x, Geometry g, float2* partials) {
  using V = RawVector<T>;
  constexpr int E = V::kCount;
  // Thread (lane, column)'s sums of channel c at lane * C + c; then each channel's total over
  // the lanes in place of lane 0's (only the thread of channel c reads or writes those).
  __shared__ float2 sums[kThreads * E];
  const int64_t n = blockIdx.y, block = blockIdx.x;
  const int64_t last_tile = min((block + 1) * g.rounds, g.tiles);
  float shift[E], sum[E] = {}, squares[E] = {};
  const BlockTile<T> first(g, block * g.rounds);
  if (first.active()) {
#pragma unroll
    for (int e = 0; e < E; ++e) shift[e] = group_shift(x, g, n, first.column * E + e);
  }
  for (int64_t tile = block * g.rounds; tile < last_tile; ++tile) {
    const BlockTile<T> t(g, tile);
    // Plain loads (no evict-first hint): normalize_channels_last reads these lines again from
    // L2.
    V v[kPositions];
#pragma unroll
    for (int j = 0; j < kPositions; ++j)
      v[j].raw = t.holds(j) ? V::load_plain(x + t.at(g, n, j)).raw : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int j = 0; j < kPositions; ++j) {
      if (!t.holds(j)) continue;
      float values[E];
      v[j].unpack(values);
#pragma unroll
      for (int e = 0; e < E; ++e) {
        const float d = values[e] - shift[e];
        sum[e] += d;
        squares[e] = fmaf(d, d, squares[e]);
      }
    }
  }
  if (first.active()) {
#pragma unroll
    for (int e = 0; e < E; ++e)
      sums[first.lane * g.channels + first.column * E + e] = make_float2(sum[e], squares[e]);
  }
  __syncthreads();
  for (int64_t c = threadIdx.x; c < g.channels; c += kThreads) {
    float2 total = sums[c];
    for (int l = 1; l < first.lanes; ++l) {
      total.x += sums[l * g.channels + c].x;
      total.y += sums[l * g.channels + c].y;
    }
    sums[c] = total;
  }
  __syncthreads();
  for (int64_t group = threadIdx.x; group < g.groups; group += kThreads) {
    float2 total = make_float2(0.0f, 0.0f);
    for (int64_t c = group * g.group_channels; c < (group + 1) * g.group_channels; ++c) {
      total.x += sums[c].x;
      total.y += sums[c].y;
    }
    partials[(n * g.blocks + block) * g.groups + group] = total;
  }
  // Only now: a dependent launched earlier would take SM slots from this grid's blocks, and
  // normalize_channels_last's early loads would find x not yet in L2.
  allow_dependent_launch();
}

// A warp per (sample, group); every lane adds blocks lane, lane + 32, ... in order, then the
// lanes' sums meet in a fixed butterfly. The shift, weight and bias are inputs, not the
// previous kernel's output: they are loaded before the wait (for up to kPrefetched channels a
// lane), so that their latency overlaps group_partials.
constexpr int kPrefetched = 4;

template <class T, class P>
__global__ void __launch_bounds__(kThreads)
    group_coefficients(const T* x, const P* weight, const P* bias, const float2* partials,
                       Geometry g, float4* coefficients) {
  allow_dependent_launch();
  const int64_t warp = (int64_t{blockIdx.x} * kThreads + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  const bool active = warp < g.samples * g.groups;
  const int64_t n = active ? warp / g.groups : 0, group = active ? warp % g.groups : 0;
  const int64_t c0 = group * g.group_channels, c_end = c0 + g.group_channels;
  auto param = [](const P* p, int64_t c, float absent) { return p ? to_float<P>(p[c]) : absent; };
  float shift = 0.0f, w[kPrefetched], b[kPrefetched];
  if (active) {
    shift = group_shift(x, g, n, static_cast<int>(c0));
#pragma unroll
    for (int i = 0; i < kPrefetched; ++i) {
      const int64_t c = c0 + lane + 32 * i;
      w[i] = c < c_end ? param(weight, c, 1.0f) : 0.0f;
      b[i] = c < c_end ? param(bias, c, 0.0f) : 0.0f;
    }
  }
  wait_for_previous_kernel();
  if (!active) return;
  double sum = 0.0, squares = 0.0;
#pragma unroll 4
  for (int64_t b = lane; b < g.blocks; b += 32) {
    const float2 s = partials[(n * g.blocks + b) * g.groups + group];
    sum += s.x;
    squares += s.y;
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    squares += __shfl_xor_sync(0xffffffffu, squares, offset);
  }
  const double count = static_cast<double>(g.group_channels * g.spatial);
  const double mean = sum / count;  // of x - shift
  const float rstd = static_cast<float>(rsqrt(fmax(squares / count - mean * mean, 0.0) + g.eps));
  auto store = [&](int64_t c, float weight_c, float bias_c) {
    const float scale = rstd * weight_c;
    coefficients[n * g.channels + c] =
        make_float4(scale, fmaf(-static_cast<float>(mean), scale, bias_c), shift, 0.0f);
  };
#pragma unroll
  for (int i = 0; i < kPrefetched; ++i)
    if (c0 + lane + 32 * i < c_end) store(c0 + lane + 32 * i, w[i], b[i]);
  for (int64_t c = c0 + lane + 32 * kPrefetched; c < c_end; c += 32)
    store(c, param(weight, c, 1.0f), param(bias, c, 0.0f));
}

// Block b of sample n takes the tiles of group_partials' block b, in reverse order.
template <class T, class Epilogue>
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    normalize_channels_last(const T* x, const float4* coefficients, Geometry g, T* y,
                            Epilogue epilogue) {
  using V = RawVector<T>;
  constexpr int E = V::kCount;
  const int64_t n = g.samples - 1 - blockIdx.y;
  const int64_t block = gridDim.x - 1 - blockIdx.x;
  const int64_t first_tile = block * g.rounds;
  float4 k[E];
  for (int64_t tile = min(first_tile + g.rounds, g.tiles) - 1; tile >= first_tile; --tile) {
    const BlockTile<T> t(g, tile);
    V v[kPositions];
#pragma unroll
    for (int j = 0; j < kPositions; ++j)
      v[j].raw = t.holds(j) ? V::load_streaming(x + t.at(g, n, j)).raw : make_uint4(0, 0, 0, 0);
    // x is an input, not the previous kernels' output: its first tile is loaded before the
    // wait, then the coefficients once.
    if (tile == min(first_tile + g.rounds, g.tiles) - 1) {
      wait_for_previous_kernel();
      if (!t.active()) return;
#pragma unroll
      for (int e = 0; e < E; ++e) {
        k[e] = __ldg(coefficients + n * g.channels + t.column * E + e);
        fold_input_scale<Epilogue>(k[e].x, k[e].y);
      }
    }
#pragma unroll
    for (int j = 0; j < kPositions; ++j) {
      if (!t.holds(j)) continue;
      float values[E];
      v[j].unpack(values);
#pragma unroll
      for (int e = 0; e < E; ++e) values[e] = epilogue(fmaf(values[e] - k[e].z, k[e].x, k[e].y));
      V::pack(values).store_streaming(y + t.at(g, n, j));
    }
  }
}

// Tiles of lanes * kPositions positions; consecutive tiles a block where the grid would take
// more than one wave of kBlocksPerSm blocks an SM.
Geometry geometry(const ProblemShape& p, const DeviceCaps& device) {
  const int64_t lanes = kThreads / (p.channels * dtype_bytes(p.dtype) / 16);
  Geometry g{p.shape[0],
             p.channels,
             p.groups,
             p.channels / p.groups,
             p.spatial,
             ceil_div(p.spatial, lanes * kPositions),
             1,
             0,
             static_cast<float>(p.eps)};
  const int64_t slots = int64_t{kBlocksPerSm} * std::max(device.sm_count, 1);
  g.rounds = ceil_div(g.tiles * g.samples, slots);
  g.blocks = ceil_div(g.tiles, g.rounds);
  return g;
}

template <class T, class P, class Epilogue>
cudaError_t launch(const Geometry& g, const KernelArgs& args) {
  auto* workspace = static_cast<char*>(args.workspace);
  auto* partials = reinterpret_cast<float2*>(workspace);
  auto* coefficients = reinterpret_cast<float4*>(workspace + coefficients_offset(g));
  const auto* x = static_cast<const T*>(args.x);
  const dim3 blocks(static_cast<unsigned>(g.blocks), static_cast<unsigned>(g.samples));
  group_partials<T><<<blocks, kThreads, 0, args.stream>>>(x, g, partials);
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) return error;
  const int64_t warps_per_block = kThreads / 32;
  error =
      launch_dependent(group_coefficients<T, P>,
                       dim3(static_cast<unsigned>(ceil_div(g.samples * g.groups, warps_per_block))),
                       kThreads, 0, args.stream, x, static_cast<const P*>(args.weight),
                       static_cast<const P*>(args.bias), partials, g, coefficients);
  if (error != cudaSuccess) return error;
  return launch_dependent(normalize_channels_last<T, Epilogue>, blocks, kThreads, 0, args.stream, x,
                          coefficients, g, static_cast<T*>(args.y), Epilogue{});
}

template <class Epilogue>
KernelPlan plan(const ProblemShape& p, const DeviceCaps& device) {
  const int64_t size = dtype_bytes(p.dtype);
  if (!p.channels_last()) return KernelPlan::declined("NCHW: this kernel takes channels-last data");
  if (p.channels * size % 16 != 0 || p.channels * size / 16 > kMaxColumns)
    return KernelPlan::declined("channels-last rows must be 16-byte vectors, at most " +
                                std::to_string(kMaxColumns) + " of them");
  const Geometry g = geometry(p, device);
  if (g.samples > 65535 || g.blocks > 0x7fffffff)
    return KernelPlan::declined("more than 65535 samples or 2^31 tiles a sample (grid dimensions)");
  KernelPlan plan;
  plan.workspace_bytes = workspace_bytes(g);
  plan.launch = [p, g](const KernelArgs& args) {
    return with_element_types(p, [&](auto data, auto param) {
      using T = typename decltype(data)::type;
      using P = typename decltype(param)::type;
      return launch<T, P, EpilogueFor<T, Epilogue>>(g, args);
    });
  };
  return plan;
}

}  // namespace

NORMBENCH_REGISTER_KERNEL(planned_variant(
    Op::group_norm, "group_norm.channel_sums",
    "channels-last: per-group sums over tiles of positions, then y from per-channel "
    "coefficients, x read twice (the second time mostly from L2), three launches",
    plan<IdentityEpilogue>, Accepts::everything()));
NORMBENCH_REGISTER_KERNEL(
    planned_variant(Op::group_norm_silu, "group_norm_silu.channel_sums",
                    "channels-last: group_norm.channel_sums with SiLU on y in registers",
                    plan<SiluEpilogue>, Accepts::everything()));
}  // namespace normbench::kernels
