// The cluster_tiles kernel: channels-last GroupNorm of the small and mid-sized diffusion shapes
// (SD 1.5 / SDXL UNet, 2 x 320..1280 channels x 16..128 squared) in one launch with no grid
// barrier. cluster_tiles_plan.hpp says how a problem is cut; per block:
//
//   loads      the block's positions of its chunk of channels, 16-byte vectors, each thread
//              all of its vectors back to back into registers (x is read once, from DRAM);
//              its channels never change, so the shifts (below) are loaded once, at the
//              start, and so are the weight and bias (the grid's kernel: at its barrier);
//   statistics per channel in float, sums of (x - shift) and (x - shift)^2 with shift = the
//              group's element at position 0, the same for every block of the cluster (what
//              keeps float32 data such as 1000 + N(0,1) at its tolerance); the block adds
//              its threads' sums per channel, then per group, in fixed orders;
//   exchange   the block writes its partial of each group into every block's shared memory
//              (a slot per rank), a cluster barrier, then each block adds the partials of its
//              groups from its own slots in a fixed order (merge_cluster_partials; in double
//              for float32 data, in float for 16-bit data): every block gets the same bits,
//              and the run the same result every time;
//   output     y = (x - shift) * scale + offset from registers (scale = rstd * weight, offset =
//              bias - (mean - shift) * scale; 16-bit data: x * scale + offset - shift * scale),
//              the epilogue, one rounding, streaming stores.
// Pushing the partials rather than reading the other blocks' (the first version) leaves no
// shared memory of another block to read after the barrier, so no second cluster barrier keeps
// the blocks alive until every read is done: 4-11% faster on the H100 (kernels/NOTES.md). The
// one other barrier, arrived at when the loads are issued and waited for before the first
// remote write, makes sure every block of the cluster has started: its shared memory is there.
//
// group_norm.grid_registers is the same kernel with the chunk's blocks spread over the whole
// grid instead of one cluster (kGrid): each block stores its partials in the workspace, one
// grid barrier (a cooperative launch: every block resident), then each block adds its groups'
// partials from there in a fixed order (a team of lanes per group). Where a
// cluster's 16 SMs cannot hold a chunk, or clusters would leave most SMs idle, the whole chip
// holds x (beyond 12 vectors a thread, 8 or 16 more in shared memory: kShared, by bulk copies,
// so on sm_90 only) and it is still read once.
//
// Assumes channels-last x and y of 16-byte aligned rows (C * element size % 16 == 0), a chunk
// of K * element size % 16 == 0 bytes, and with vectors in shared memory a chunk of the whole
// row (the plan checks all three; the launch the last one too).
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/device/async_copy.cuh"
#include "kernels/device/bulk_copy.cuh"
#include "kernels/device/device_math.cuh"
#include "kernels/device/element_types.cuh"
#include "kernels/device/raw_vectors.cuh"
#include "kernels/device/small_quotient.hpp"
#include "kernels/group_norm/cluster_tiles_plan.hpp"

namespace normbench::kernels {

struct ClusterTilesArgs {
  const void* x;
  void* y;
  const void* weight;  // null: 1
  const void* bias;    // null: 0
  int64_t spatial;
  int64_t channels;
  int group_channels;
  int chunk_channels;
  int chunk_groups;
  int chunks;  // per sample: the grid is cluster x chunks x samples blocks
  int column_vectors;
  int row_lanes;
  float inverse_column_vectors;  // small_quotient_inverse(column_vectors)
  float inverse_group_channels;  // small_quotient_inverse(group_channels)
  int cluster;
  int64_t positions_per_block;
  float eps;
  double inverse_count;  // 1 / (spatial * group_channels): a group's element count
  // kGrid: [samples * chunks][chunk_groups][cluster] partials, written before the grid barrier.
  float2* exchange;
};

__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// Shared memory: the vectors held there (`shared_vectors` 16-byte vectors a thread, vector j
// of thread t at j * threads + t) and `threads * E` float2 sums of each thread's channels (both
// in plan.shared_bytes), then the channels' totals and the groups' partials
// (cluster_tiles_exchange_bytes).
inline size_t cluster_tiles_shared_bytes(const ClusterTilesPlan& plan) {
  return plan.shared_bytes + cluster_tiles_exchange_bytes(plan.chunk_channels, plan.chunk_groups,
                                                          plan.cluster, plan.grid_barrier,
                                                          plan.shared_vectors);
}

// (mean - shift, rstd) of a group from its sums of x - shift and (x - shift)^2. A product with
// the host's reciprocal of the count, not a division: a double division is some forty
// dependent instructions, on the path between the barrier and the first store. In double for
// float32 data (tolerance 1e-5); in float for 16-bit data, whose outputs round at 2^-9 or
// 2^-11: the merge's and these few float roundings add to the float partials' own (each some
// fifty roundings of a block's sums) less than they hold, and the variance's cancellation
// amplifies both alike. On the H100 the float merge took 0.1-0.25 us off most of
// diffusion.json's grid_registers shapes, SDXL's 2 x 320 x 128 x 128 float16 included
// (kernels/NOTES.md).
__device__ __forceinline__ float2 group_coefficients(double sum, double squares,
                                                     const ClusterTilesArgs& a) {
  const double mean = sum * a.inverse_count;  // of x - shift
  const double variance = fmax(fma(squares, a.inverse_count, -mean * mean), 0.0);
  return make_float2(static_cast<float>(mean), static_cast<float>(rsqrt(variance + a.eps)));
}
__device__ __forceinline__ float2 group_coefficients(float sum, float squares,
                                                     const ClusterTilesArgs& a) {
  const auto inverse_count = static_cast<float>(a.inverse_count);
  const float mean = sum * inverse_count;
  const float variance = fmaxf(fmaf(squares, inverse_count, -mean * mean), 0.0f);
  return make_float2(mean, rsqrtf(variance + a.eps));
}

// The width of the teams of lanes that add a group's partials, each in one warp, as a power of
// two: as wide as the block leaves room for, so that every group is added at once where the
// block has a warp for every two groups. The same for every block of a chunk.
__device__ __forceinline__ int merge_team_bits(int chunk_groups) {
  const int warps = static_cast<int>(blockDim.x) / 32;  // the plan's threads: a multiple of 32
  int bits = 5;
  while (bits > 0 && (warps << (5 - bits)) < chunk_groups) --bits;
  return bits;
}

// The coefficients of every group of the chunk, from `partial(g, r)`: group g's float2 sums of
// rank r, written as float2 (mean - shift, rstd) for each of its channels c into
// `table[entry(c)]` (the body's layout of per-channel arrays), by
// teams of 1 << kTeamBits lanes (merge_team_bits; merge_group_partials below picks the
// instantiation, so that the width is a constant). A lane adds its ranks (member, member +
// team, ...) in Sum, all of its loads (up to kLoads) issued before it adds any: one round trip
// to L2. Then the team's shuffle levels, with no branch between them; warps whose teams have no
// group skip the round. The order of the additions depends only on the block size and the
// ranks: every block of a chunk gets the same bits. After the grid barrier every step is on
// the path to the first store, and what costs is one warp's chain of dependent instructions:
// against batches of 4 loads with the width known only at run time (mostly indexing, bounds
// predicates and branches), this took 0.05-0.25 us off the grid kernel's shapes on the H100 and
// 0.2-0.4 us off SDXL's 2 x 320 x 128 x 128 float16 (kernels/NOTES.md).
template <int kTeamBits, int kLoads, class Sum, class Partial, class Entry>
__device__ __forceinline__ void merge_team_partials(const ClusterTilesArgs& a,
                                                    const Partial& partial, const Entry& entry,
                                                    float2* table) {
  constexpr int kTeam = 1 << kTeamBits;
  const int teams = static_cast<int>(blockDim.x) >> kTeamBits;
  const int member = static_cast<int>(threadIdx.x) & (kTeam - 1);
  const int warp_team = (static_cast<int>(threadIdx.x) & ~31) >> kTeamBits;  // its first
  const int loads = max(0, (a.cluster - member + kTeam - 1) >> kTeamBits);   // this lane's ranks
  for (int first = 0; first < a.chunk_groups; first += teams) {
    if (first + warp_team >= a.chunk_groups) break;  // the whole warp, and every later round
    const int g = first + (static_cast<int>(threadIdx.x) >> kTeamBits);
    const int n = g < a.chunk_groups ? loads : 0;
    Sum sum = 0, squares = 0;
    for (int k0 = 0; k0 < n; k0 += kLoads) {
      float2 s[kLoads];
#pragma unroll
      for (int k = 0; k < kLoads; ++k)
        s[k] = k0 + k < n ? partial(g, member + (k0 + k) * kTeam) : make_float2(0.0f, 0.0f);
#pragma unroll
      for (int k = 0; k < kLoads; ++k) {
        sum += s[k].x;
        squares += s[k].y;
      }
    }
#pragma unroll
    for (int offset = kTeam / 2; offset > 0; offset /= 2) {
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
      squares += __shfl_xor_sync(0xffffffffu, squares, offset);
    }
    if (g < a.chunk_groups) {
      const float2 c = group_coefficients(sum, squares, a);
      for (int channel = member; channel < a.group_channels; channel += kTeam)
        table[entry(g * a.group_channels + channel)] = c;
    }
  }
}
// The shared-vector kernels' fixed team width (below, where they merge).
constexpr int kSharedMergeTeamBits = 3;

template <int kLoads, class Sum, class Partial, class Entry>
__device__ __forceinline__ void merge_group_partials(const ClusterTilesArgs& a,
                                                     const Partial& partial, const Entry& entry,
                                                     float2* table) {
  switch (merge_team_bits(a.chunk_groups)) {
    case 5:
      return merge_team_partials<5, kLoads, Sum>(a, partial, entry, table);
    case 4:
      return merge_team_partials<4, kLoads, Sum>(a, partial, entry, table);
    case 3:
      return merge_team_partials<3, kLoads, Sum>(a, partial, entry, table);
    case 2:
      return merge_team_partials<2, kLoads, Sum>(a, partial, entry, table);
    case 1:
      return merge_team_partials<1, kLoads, Sum>(a, partial, entry, table);
    default:
      return merge_team_partials<0, kLoads, Sum>(a, partial, entry, table);
  }
}

// The cluster's kernel adds its partials, in its own shared memory, one load at a time in teams
// whose width is known only at run time, in the same fixed order for every block: with
// merge_group_partials' compile-time teams ptxas held its kernels to 64 registers and spilled
// (every register here is one fewer for x).
template <class Sum, class Entry>
__device__ __forceinline__ void merge_cluster_partials(const ClusterTilesArgs& a,
                                                       const float2* partials, const Entry& entry,
                                                       float2* table) {
  const int team_bits = merge_team_bits(a.chunk_groups);
  const int team = 1 << team_bits;
  const int teams = static_cast<int>(blockDim.x) >> team_bits;
  const int member = static_cast<int>(threadIdx.x) & (team - 1);
  // Rounds the same for every warp, so that the shuffles below have all 32 lanes.
  for (int first = 0; first < a.chunk_groups; first += teams) {
    const int g = first + (static_cast<int>(threadIdx.x) >> team_bits);
    const bool active = g < a.chunk_groups;
    Sum sum = 0, squares = 0;
    for (int r0 = 0; r0 < a.cluster; r0 += team) {
      const int r = r0 + member;
      const float2 s =
          active && r < a.cluster ? partials[r * a.chunk_groups + g] : make_float2(0.0f, 0.0f);
      sum += s.x;
      squares += s.y;
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      if (offset >= team) continue;  // the same for every lane: no divergence
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
      squares += __shfl_xor_sync(0xffffffffu, squares, offset);
    }
    if (active) {
      const float2 c = group_coefficients(sum, squares, a);
      for (int channel = member; channel < a.group_channels; channel += team)
        table[entry(g * a.group_channels + channel)] = c;
    }
  }
}

// The kernels' body: a thread's vectors 0..kVectors-1 in registers, kVectors..kVectors+kShared-1
// in shared memory (bulk copies, no registers in flight). kGrid: `cluster` is the number of
// blocks that share a chunk, anywhere in the grid.
template <class T, class P, int kVectors, int kShared, bool kGrid, class Epilogue>
__device__ __forceinline__ void cluster_tiles_body(const ClusterTilesArgs& a,
                                                   const Epilogue& epilogue) {
  using V = RawVector<T>;
  constexpr int E = V::kCount;
  using MergeSum = std::conditional_t<std::is_same_v<T, float>, double, float>;
  extern __shared__ float4 shared_vectors[];
  float4* held = shared_vectors;  // [kShared][threads]
  auto* shared = reinterpret_cast<float2*>(shared_vectors + kShared * blockDim.x);
  float2* thread_sums = shared;                    // [lanes][chunk_channels], by entry (below)
  float2* channel_sums = shared + blockDim.x * E;  // [chunk_channels], then the cluster's partials

  // The grid is cluster x chunks x samples: no integer division (some twenty instructions each,
  // before the first load can be issued) to find the block's place.
  const int rank = static_cast<int>(blockIdx.x);
  const int chunk = static_cast<int>(blockIdx.y);
  const int64_t sample = blockIdx.z;
  static_assert(
      kClusterTilesMaxThreads * 16 < kSmallQuotientDividends,
      "threads and a chunk's channels (16 a column at most) within small_quotient's range");
  const int lane = small_quotient(static_cast<int>(threadIdx.x), a.inverse_column_vectors);
  const int column = static_cast<int>(threadIdx.x) - lane * a.column_vectors;
  // The per-channel arrays in shared memory (each lane's thread_sums, channel_sums, and the
  // coefficients that replace them after the exchange) hold channel c = column * E + e at
  // entry e * column_vectors + column: a warp's threads, which hold consecutive columns, then
  // touch consecutive 8-byte entries. Laid out by channel, a thread's E channels were adjacent
  // and the warp's accesses 8 * E bytes apart, four ways of bank conflict on the sums written
  // before the barrier and on the coefficients read after it, both on the path to the first
  // store. On the H100 (ncu, SDXL's float16 shape) 36% of the shared-memory wavefronts were
  // excessive, 10% so, and the shape ran 0.3 us faster (kernels/NOTES.md).
  const auto entry = [&](int c) {
    const auto u = static_cast<unsigned>(c);
    return static_cast<int>(u % E) * a.column_vectors + static_cast<int>(u / E);
  };
  const int64_t first = int64_t{rank} * a.positions_per_block;
  const int64_t end = min(first + a.positions_per_block, a.spatial);
  const int64_t chunk_start = sample * a.spatial * a.channels + int64_t{chunk} * a.chunk_channels;
  // This thread's vector j is at position begin + j * row_lanes, below end: a 32-bit product
  // and comparison a vector instead of a 64-bit position, product and comparison.
  const int64_t begin = first + lane;
  const int remaining = lane < a.row_lanes ? static_cast<int>(end - begin) : 0;
  auto holds = [&](int j) { return j * a.row_lanes < remaining; };
  const int64_t step = int64_t{a.row_lanes} * a.channels;  // elements between a thread's vectors
  const int64_t at = chunk_start + begin * a.channels + column * E;  // its vector 0
  const T* x = static_cast<const T*>(a.x) + at;
  T* y = static_cast<T*>(a.y) + at;

  // The last phase computes up to 8 vectors' outputs in batches of 4, held or not (below).
  constexpr int kStoreBatch = kVectors <= 8 ? (kVectors < 4 ? kVectors : 4) : 1;
  static_assert(kVectors % kStoreBatch == 0, "whole batches");
  V v[kVectors];  // only the vectors a thread holds are read; in batches the others are zeros
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    if (holds(j))
      v[j] = V::load_streaming(x + j * step);
    else if constexpr (kStoreBatch > 1)
      v[j] = V{};
  }
  // Vectors kVectors.. of every thread in shared memory, a slab j at a time (vector kVectors + j
  // of every thread), each slab with its own barrier, so that a slab's sums start as soon as it
  // has landed rather than after the last (kernels/NOTES.md). The chunk is the whole row (the
  // plan holds vectors in shared memory for such chunks only), so the lanes' positions of a slab
  // follow each other in x, laid out in shared memory as in x: one bulk copy a slab, by one
  // thread, of the lanes that hold it (a prefix of them, by the same rule as holds()). The
  // shared-memory loops stay rolled: unrolled, their addresses took registers (spills).
  __shared__ uint64_t landed[kShared > 0 ? kShared : 1];
  if constexpr (kShared > 0) {
    if (threadIdx.x == 0) {
#pragma unroll 1
      for (int j = 0; j < kShared; ++j) init_bulk_barrier(&landed[j], 1);
      fence_bulk_barrier_init();
    }
    __syncthreads();         // the barriers initialized before any thread waits on them
    if (threadIdx.x == 0) {  // lane 0, column 0: x is the block's first position
      const int64_t positions = end - first;
#pragma unroll 1
      for (int j = 0; j < kShared; ++j) {
        const int64_t lanes = max(
            int64_t{0}, min(int64_t{a.row_lanes}, positions - int64_t{kVectors + j} * a.row_lanes));
        const auto bytes = static_cast<unsigned>(lanes * a.column_vectors * 16);
        expect_bulk_bytes(&landed[j], bytes);
        if (bytes > 0)
          bulk_copy(held + j * blockDim.x, x + (kVectors + j) * step, bytes, &landed[j]);
      }
    }
  }
  // Vector kVectors + j of this thread, held in shared memory.
  const auto shared_vector = [&](int j) {
    V w;
    w.raw = reinterpret_cast<const uint4*>(held)[j * blockDim.x + threadIdx.x];
    return w;
  };
  if constexpr (!kGrid)
    cluster_arrive_relaxed();  // started (waited for before the first write to another block)

  // This thread's channels, their groups' shifts, weights and biases.
  const int channel = column * E;      // within the chunk
  float shift[E], weight[E], bias[E];  // weight and bias: widened after the exchange
  const T* sample_x = static_cast<const T*>(a.x) + chunk_start;
  {
    // The group of each channel from the first one's, not a quotient a channel.
    int g = small_quotient(channel, a.inverse_group_channels);
    int in_group = channel - g * a.group_channels;
#pragma unroll
    for (int e = 0; e < E; ++e) {
      shift[e] = to_float<T>(__ldg(sample_x + g * a.group_channels));
      const bool next = ++in_group == a.group_channels;
      in_group = next ? 0 : in_group;
      g += next ? 1 : 0;
    }
  }
  // Loaded as they are and widened only where used: widened at the load, the first use of the
  // registers waited for the load there (the grid's kernel: before arriving at its barrier).
  RawParams<E, P> raw_weight, raw_bias;
  const auto load_affine = [&] {
    const int64_t param = int64_t{chunk} * a.chunk_channels + channel;
    raw_weight.load(static_cast<const P*>(a.weight), param);
    raw_bias.load(static_cast<const P*>(a.bias), param);
  };
  // With x, its latency hidden behind x's; the grid's kernel loads them at its barrier instead,
  // where their latency hides as well: fewer registers live through the statistics.
  if constexpr (!kGrid) load_affine();

  float sum[E] = {}, squares[E] = {};
  const auto accumulate = [&](const V& vector) {
    float e_values[E];
    vector.unpack(e_values);
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const float d = e_values[e] - shift[e];
      sum[e] += d;
      squares[e] = fmaf(d, d, squares[e]);
    }
  };
#pragma unroll
  for (int j = 0; j < kVectors; ++j)
    if (holds(j)) accumulate(v[j]);
  if constexpr (kShared > 0) {
#pragma unroll 1
    for (int j = 0; j < kShared; ++j) {
      wait_first_phase(&landed[j]);
      if (holds(kVectors + j)) accumulate(shared_vector(j));
    }
  }
  if (lane < a.row_lanes) {  // the threads past the last lane hold nothing
#pragma unroll
    for (int e = 0; e < E; ++e)
      thread_sums[lane * a.chunk_channels + e * a.column_vectors + column] =  // entry(channel + e)
          make_float2(sum[e], squares[e]);
  }
  __syncthreads();

  // Per channel over the lanes, then per group over its channels, in fixed orders: lane r's
  // sums of the channel at entry i are at r * K + i.
  for (int i = threadIdx.x; i < a.chunk_channels; i += blockDim.x) {
    float2 total = make_float2(0.0f, 0.0f);
    for (int r = 0; r < a.row_lanes; ++r) {
      const float2 s = thread_sums[r * a.chunk_channels + i];
      total.x += s.x;
      total.y += s.y;
    }
    channel_sums[i] = total;
  }
  __syncthreads();
  const auto group_total = [&](int g) {
    float2 total = make_float2(0.0f, 0.0f);
    for (int c = g * a.group_channels; c < (g + 1) * a.group_channels; ++c) {
      const float2 s = channel_sums[entry(c)];
      total.x += s.x;
      total.y += s.y;
    }
    return total;
  };
  // After the exchange each channel's (mean - shift, rstd) goes into channel_sums (free again
  // after the barrier), so that a thread needs no group index for its channels.
  if constexpr (kGrid) {
    const int64_t chunk_index = sample * a.chunks + chunk;
    float2* slots = a.exchange + chunk_index * a.chunk_groups * a.cluster;
    for (int g = threadIdx.x; g < a.chunk_groups; g += blockDim.x)
      __stcg(slots + g * a.cluster + rank, group_total(g));
    load_affine();
    cooperative_groups::this_grid().sync();
    if constexpr (kShared == 0) {
      merge_group_partials<12, MergeSum>(
          a, [&](int g, int r) { return __ldcg(slots + g * a.cluster + r); }, entry, channel_sums);
    } else {
      // x held partly in shared memory is the largest x, spread over the most blocks a chunk
      // and so the most partials (SDXL's whole-row plan: 66 ranks of 32 groups, 17 KB). They
      // first come into shared memory ([chunk_groups][cluster], contiguous in the workspace)
      // by 16-byte async copies from the 16-byte boundary at or below them: one round trip
      // for all, no registers held across it. On the H100 SDXL's float16 took 0.1-0.2 us less
      // so than with its teams' loads from L2, one round trip as well (kernels/NOTES.md).
      // Their teams are 8 lanes wide, fixed: merge_group_partials' switch over widths jumped
      // through a table into code not yet fetched, after the barrier, and six widths' code made
      // the kernel larger. SDXL's float16 (32 groups, teams of 8 by merge_team_bits too) took
      // 0.04-0.13 us less device time so on the H100, builds with and without compared
      // (kernels/NOTES.md). Every block still adds in one order.
      const auto start = reinterpret_cast<uintptr_t>(slots);
      const auto* from = reinterpret_cast<const float4*>(start & ~uintptr_t{15});
      const int lead = static_cast<int>((start & 15) / sizeof(float2));  // 0 or 1
      const int count = (lead + a.chunk_groups * a.cluster + 1) / 2;     // 16-byte copies
      auto* staged = reinterpret_cast<float4*>(channel_sums + a.chunk_channels);
      for (int i = threadIdx.x; i < count; i += blockDim.x) copy_async16(staged + i, from + i);
      commit_copies();
      wait_copies<0>();
      __syncthreads();
      const float2* partials = reinterpret_cast<const float2*>(staged) + lead;
      merge_team_partials<kSharedMergeTeamBits, 12, MergeSum>(
          a, [&](int g, int r) { return partials[g * a.cluster + r]; }, entry, channel_sums);
    }
  } else {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900      // clusters: sm_90 (older devices trap)
    float2* partials = channel_sums + a.chunk_channels;  // [cluster][chunk_groups]
    cluster_wait();                                      // every block of the cluster has started
    const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
    for (int g = threadIdx.x; g < a.chunk_groups; g += blockDim.x) {
      const float2 total = group_total(g);
      for (int r = 0; r < a.cluster; ++r)
        cluster.map_shared_rank(partials, r)[rank * a.chunk_groups + g] = total;
    }
    cluster_arrive();  // partials written into every block (release) ...
    cluster_wait();    // ... and every block's written into this one (acquire)
    merge_cluster_partials<MergeSum>(a, partials, entry, channel_sums);
#endif
  }
  __syncthreads();

  // float32 keeps x - shift (exact for nearby values): folding shift * scale into the offset
  // would cost |mean * rstd| * 2^-24 of absolute error, 6e-5 on 1000 + N(0,1), over its 1e-5
  // tolerance. For 16-bit outputs that error is far below their rounding, and the fold saves
  // an instruction an element (as grid_tiles).
  constexpr bool kShifted = std::is_same_v<T, float>;
  raw_weight.unpack(static_cast<const P*>(a.weight), weight, 1.0f);
  raw_bias.unpack(static_cast<const P*>(a.bias), bias, 0.0f);
  float scale[E], offset[E];
#pragma unroll
  for (int e = 0; e < E; ++e) {
    const float2 c = channel_sums[e * a.column_vectors + column];  // entry(channel + e)
    scale[e] = c.y * weight[e];
    offset[e] = fmaf(-c.x, scale[e], bias[e]);
    if constexpr (!kShifted) offset[e] = fmaf(-shift[e], scale[e], offset[e]);
    fold_input_scale<Epilogue>(scale[e], offset[e]);
  }
  const auto output = [&](const V& vector) {
    float e_values[E];
    vector.unpack(e_values);
#pragma unroll
    for (int e = 0; e < E; ++e)
      e_values[e] = kShifted ? fmaf(e_values[e] - shift[e], scale[e], offset[e])
                             : fmaf(e_values[e], scale[e], offset[e]);
    apply_epilogue(epilogue, e_values);
    return V::pack(e_values);
  };
  // Up to 8 vectors a thread: their outputs 4 at a time, held or not, before the batch's
  // stores. No branch between them, so their arithmetic interleaves (the epilogue's latency
  // hides behind the other vectors'), and the stores still start early. On the H100 this took
  // the SiLU of 2 x 640 x 32 x 32 float16 from +6% over GroupNorm to +4%; all 8 at once were
  // slower, and with more vectors a thread batches spill (kernels/NOTES.md).
#pragma unroll
  for (int j0 = 0; j0 < kVectors; j0 += kStoreBatch) {
    if constexpr (kStoreBatch == 1) {
      if (holds(j0)) output(v[j0]).store_streaming(y + j0 * step);
    } else {
      V out[kStoreBatch];
#pragma unroll
      for (int k = 0; k < kStoreBatch; ++k) out[k] = output(v[j0 + k]);
#pragma unroll
      for (int k = 0; k < kStoreBatch; ++k)
        if (holds(j0 + k)) out[k].store_streaming(y + (j0 + k) * step);
    }
  }
  // The shared vectors two at a time, both outputs before either store, so that their
  // arithmetic interleaves: with SiLU, SDXL's 2 x 320 x 128 x 128 float16 (16 shared vectors a
  // thread) took 22.0-22.2 us so against 22.3-22.5 one at a time on the H100 (kernels/NOTES.md).
  if constexpr (kShared > 0) {
    static_assert(kShared % 2 == 0, "shared vectors in pairs");
#pragma unroll 1
    for (int j = 0; j < kShared; j += 2) {
      const V first_out = output(shared_vector(j)), second_out = output(shared_vector(j + 1));
      if (holds(kVectors + j)) first_out.store_streaming(y + (kVectors + j) * step);
      if (holds(kVectors + j + 1)) second_out.store_streaming(y + (kVectors + j + 1) * step);
    }
  }
}

template <class T, class P, int kVectors, class Epilogue>
__global__ void __launch_bounds__(kClusterTilesMaxThreads)
    cluster_tiles_kernel(ClusterTilesArgs a, Epilogue epilogue) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // clusters need sm_90; the plan declines older devices
#else
  cluster_tiles_body<T, P, kVectors, 0, false>(a, epilogue);
#endif
}

// The grid barrier needs every block resident: one block an SM (the plan's occupancy).
template <class T, class P, int kVectors, int kShared, class Epilogue>
__global__ void __launch_bounds__(kClusterTilesMaxThreads, 1)
    grid_registers_kernel(ClusterTilesArgs a, Epilogue epilogue) {
  cluster_tiles_body<T, P, kVectors, kShared, true>(a, epilogue);
}

}  // namespace normbench::kernels
