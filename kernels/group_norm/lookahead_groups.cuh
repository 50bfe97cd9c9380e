// GroupNorm over groups too long for one SM (problem B: 896 groups of 2M), spread over every
// SM, with the statistics of later groups computed while earlier ones are normalized, so that
// DRAM keeps streaming while the blocks exchange partial statistics. x is read from DRAM once
// and held in shared memory until it is normalized.
//
// A persistent cooperative grid of one block per SM: 15 data warps and one exchange warp.
// Each group is cut into blocks * chunks_per_segment pieces; the block's chunk c of a group is
// piece c * blocks + block, so all blocks read one contiguous window at a time. The data
// warps walk the block's chunks, one step per chunk, with three cursors:
//   - prefetch: cp.async copies of the chunk kPrefetch steps ahead into a ring of chunks in
//     shared memory;
//   - statistics: (count, mean, M2) per thread of the chunk that has landed (a two-pass over
//     it in registers, relative to the group's first element, merged with Chan's formulas);
//     after a group's last chunk each warp hands its sums to the exchange warp;
//   - normalization: trails the statistics by one group plus `lead` chunks and normalizes
//     the chunk from the ring, with the group's statistics folded into one multiply-add per
//     element and channel.
// The exchange warp publishes the block's partial of each group, waits for all blocks'
// partials, merges them (in a fixed order: bit-identical in every block) and hands the
// folded coefficients back; the lead gives it `lead` steps before any data warp waits.
// kernels/NOTES.md has the measurements behind each choice.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/device/async_copy.cuh"
#include "kernels/device/device_math.cuh"
#include "kernels/device/segment_sync.cuh"
#include "kernels/device/vector_io.cuh"
#include "kernels/families/launch_helpers.hpp"
#include "kernels/families/split_plan.hpp"
#include "kernels/group_norm/lookahead_plan.hpp"

namespace normbench::kernels {

struct LookaheadArgs {
  const float* x;
  float* y;
  int64_t num_segments;
  int64_t segment_size;
  int piece_vecs;          // float4s of a group a block reads per step
  int chunks_per_segment;  // steps per group
  int lead_chunks;
  int ring_chunks;  // chunks_per_segment + lead_chunks + kPrefetch
  double eps;
  SlicePartial* partials;  // [group][block]
  unsigned* arrivals;      // [group], zeroed
};

// One thread's statistics of the part of a group it has read so far, relative to the shift.
struct ThreadStats {
  float count = 0.f;
  float mean = 0.f;
  float m2 = 0.f;

  // Adds the first `valid` float4s of `v`: their mean, then their squared deviations (exact
  // on data with a large mean), then Chan's merge with what came before.
  template <int kVecs>
  __device__ __forceinline__ void add(const float4 (&v)[kVecs], int valid, float shift) {
    if (valid <= 0) return;
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < kVecs; ++j)
      if (j < valid) sum += sum_of(minus(v[j], shift));
    const float n = 4.f * static_cast<float>(valid);
    const float chunk_mean = sum / n;
    float chunk_m2 = 0.f;
#pragma unroll
    for (int j = 0; j < kVecs; ++j)
      if (j < valid) {
        const float4 d = minus(minus(v[j], shift), chunk_mean);
        chunk_m2 += (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
      }
    const float total = count + n;
    const float delta = chunk_mean - mean;
    mean += delta * (n / total);
    m2 += chunk_m2 + delta * delta * (count * n / total);
    count = total;
  }
};

// A position in a block's sequence of chunks (group by group, chunk by chunk) and the ring
// slot it maps to.
struct ChunkCursor {
  int64_t first;  // this thread's first float4 of the chunk, in the group
  int64_t segment = 0;
  int chunk = 0;
  int slot = 0;

  // `stride`: float4s between a block's consecutive chunks of a group.
  __device__ __forceinline__ void advance(int chunks, int slots, int64_t stride) {
    first += stride;
    if (++chunk == chunks) {
      chunk = 0;
      first -= chunks * stride;
      ++segment;
    }
    if (++slot == slots) slot = 0;
  }
};

// Named barriers between the data warps and the exchange warp, one pair per segment parity:
// "partials ready" (data warps arrive, exchange warp waits) and "statistics ready" (the
// reverse). Barrier 0 is __syncthreads.
__device__ __forceinline__ int partials_barrier(int64_t segment) {
  return 1 + static_cast<int>(segment & 1);
}
__device__ __forceinline__ int stats_barrier(int64_t segment) {
  return 3 + static_cast<int>(segment & 1);
}
__device__ __forceinline__ void barrier_arrive(int id) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "n"(kLookaheadThreads) : "memory");
}
__device__ __forceinline__ void barrier_wait(int id) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "n"(kLookaheadThreads) : "memory");
}

// The exchange warp: for every segment in order, sums the data warps' partials, publishes the
// block's partial, waits for every block's, merges them (every block in the same order, so
// with bit-identical results) and hands the statistics to the data warps. Only this warp
// touches the cross-block counters, so the data warps never stall on them, and its fence
// before publishing has no outstanding copies or stores of its own to wait for.
__device__ __forceinline__ void exchange_warp(
    const LookaheadArgs& a, const ChannelParams& params, int folded_channels, int64_t n_vecs,
    const double2 (&warp_partials)[2][kLookaheadDataWarps], SegmentStats (&segment_stats)[2],
    float2 (&folded)[2][kMaxFoldedChannels]) {
  const int blocks = static_cast<int>(gridDim.x);
  const int lane = static_cast<int>(threadIdx.x) % 32;
  for (int64_t segment = 0; segment < a.num_segments; ++segment) {
    const float shift = __ldg(a.x + segment * a.segment_size);
    barrier_wait(partials_barrier(segment));
    const double2 w =
        lane < kLookaheadDataWarps ? warp_partials[segment & 1][lane] : make_double2(0.0, 0.0);
    const double sum = warp_sum_all(w.x), sum_sq = warp_sum_all(w.y);
    if (lane == 0) {
      const double count = 4.0 * n_vecs;
      const double mean = count > 0 ? sum / count : 0.0;
      const double m2 = count > 0 ? fmax(sum_sq - count * mean * mean, 0.0) : 0.0;
      publish_partial(a.partials + segment * blocks + blockIdx.x, SlicePartial{count, mean, m2},
                      a.arrivals + segment);
      wait_for_partials(a.arrivals + segment, static_cast<unsigned>(blocks));
    }
    __syncwarp();
    const double2 merged = merge_partials(a.partials + segment * blocks, blocks);
    const SegmentStats stats{
        shift, static_cast<float>(merged.x),
        static_cast<float>(1.0 / sqrt(merged.y / static_cast<double>(a.segment_size) + a.eps))};
    if (lane == 0) segment_stats[segment & 1] = stats;
    // Each channel's weight, bias, mean and rstd folded into y = (x - shift) * scale + offset.
    const auto group = params.for_segment(segment);
    for (int c = lane; c < folded_channels; c += 32) {
      const float w = group.weight ? __ldg(group.weight + c) : 1.f;
      const float b = group.weight ? __ldg(group.bias + c) : 0.f;
      const float scale = stats.rstd * w;
      folded[segment & 1][c] = make_float2(scale, fmaf(-stats.delta, scale, b));
    }
    barrier_arrive(stats_barrier(segment));
  }
}

template <class Epilogue, int kVecs, int kPrefetch>
__global__ void __launch_bounds__(kLookaheadThreads, 1)
    lookahead_groups_kernel(LookaheadArgs a, ChannelParams params, Epilogue epilogue) {
  constexpr int kThreads = kLookaheadDataThreads;  // the data warps; the last one exchanges
  constexpr int kChunk = kThreads * kVecs;         // ring slot size, float4s
  // The ring of chunks: the block's chunk c lives in slot c % ring_chunks, from its prefetch
  // until the normalization cursor has read it. Each thread copies, reads and overwrites only
  // its own float4s of a slot, so no barrier guards the ring.
  extern __shared__ float4 ring[];
  __shared__ double2 warp_partials[2][kLookaheadDataWarps];  // [segment parity][data warp]
  __shared__ SegmentStats segment_stats[2];                  // [segment parity]
  __shared__ float2 folded[2][kMaxFoldedChannels];           // [segment parity][channel in group]
  // The channel (in the group) of the block's chunk c if its whole piece lies in one;
  // kStraddles if it spans several (then a channel per float4); kNotFolded where the folded
  // table does not cover the group (then weight and bias are looked up per float4).
  __shared__ int chunk_channel[kMaxFoldedChunks];
  constexpr int kStraddles = -1, kNotFolded = -2;

  const int blocks = static_cast<int>(gridDim.x);
  const int block = static_cast<int>(blockIdx.x);
  const int tid = static_cast<int>(threadIdx.x);
  const int64_t vecs = a.segment_size / 4;
  const int chunks = a.chunks_per_segment;
  // The block's chunk c of a group is piece c * blocks + block: all blocks read one
  // contiguous window at a time (1.3x the DRAM throughput of a contiguous slice per block).
  const int64_t stride = static_cast<int64_t>(blocks) * a.piece_vecs;
  const int64_t origin = static_cast<int64_t>(block) * a.piece_vecs;
  const int64_t group_channels = params.channels_per_group;
  const int folded_channels = params.weight == nullptr
                                  ? 1
                                  : (group_channels <= kMaxFoldedChannels && params.spatial % 4 == 0
                                         ? static_cast<int>(group_channels)
                                         : 0);
  for (int c = tid; c < kMaxFoldedChunks; c += kLookaheadThreads) {
    const int64_t first = origin + c * stride;  // the piece's first float4
    const int64_t end = min(first + a.piece_vecs, vecs);
    int channel = kNotFolded;
    if (c < chunks && first < end && folded_channels > 0) {
      const int64_t first_channel = params.weight ? 4 * first / params.spatial : 0;
      const int64_t last_channel = params.weight ? (4 * end - 1) / params.spatial : 0;
      channel = first_channel == last_channel ? static_cast<int>(first_channel) : kStraddles;
    }
    chunk_channel[c] = channel;
  }
  __syncthreads();
  if (tid >= kThreads) {
    int64_t n_vecs = 0;
    for (int c = 0; c < chunks; ++c)
      n_vecs += max(int64_t{0}, min(int64_t{a.piece_vecs}, vecs - (origin + c * stride)));
    exchange_warp(a, params, folded_channels, n_vecs, warp_partials, segment_stats, folded);
    return;
  }
  const int warp = tid / 32;
  // This thread's float4s of a chunk are piece positions j * kThreads + tid, j < in_piece.
  const int in_piece = min(kVecs, max(0, (a.piece_vecs - tid + kThreads - 1) / kThreads));
  // How many of them a chunk whose thread's first float4 is at `first` holds (a prefix).
  auto valid = [&](int64_t first) {
    return first < vecs
               ? static_cast<int>(min(int64_t{in_piece}, (vecs - first + kThreads - 1) / kThreads))
               : 0;
  };
  const int64_t stats_steps = a.num_segments * chunks;
  const int64_t delay = chunks + a.lead_chunks;
  const auto* x4 = reinterpret_cast<const float4*>(a.x);
  auto* y4 = reinterpret_cast<float4*>(a.y);

  // (Cursors step forward instead of dividing: 64-bit divisions per step once made this
  // kernel instruction-bound.)
  auto prefetch = [&](ChunkCursor& c, int64_t position) {  // one commit group per step
    if (position < stats_steps) {
      const float4* xs = x4 + c.segment * vecs + c.first;
      float4* dst = ring + c.slot * kChunk + tid;
      const int n = valid(c.first);
#pragma unroll
      for (int j = 0; j < kVecs; ++j)
        if (j < n) copy_async16(dst + j * kThreads, xs + j * kThreads);
    }
    commit_copies();
    c.advance(chunks, a.ring_chunks, stride);
  };

  ChunkCursor ahead{origin + tid}, stats{origin + tid}, norm{origin + tid};
  for (int c = 0; c < kPrefetch; ++c) prefetch(ahead, c);
  ThreadStats mine;
  SegmentStats norm_stats{};
  // The statistics cursor's shift, and the next segment's, loaded a segment early so that
  // its latency is never waited for.
  float shift = 0.f, next_shift = __ldg(a.x);

  for (int64_t step = 0; step < stats_steps + delay; ++step) {
    const bool do_norm = step >= delay;
    const bool do_stats = step < stats_steps;

    // The normalization cursor reads its chunk before the prefetch below reuses the slot.
    float4 nv[kVecs];
    const int norm_valid = do_norm ? valid(norm.first) : 0;
    if (do_norm) {
      const float4* src = ring + norm.slot * kChunk + tid;
#pragma unroll
      for (int j = 0; j < kVecs; ++j) nv[j] = j < norm_valid ? src[j * kThreads] : kZeros4;
    }
    prefetch(ahead, step + kPrefetch);

    if (do_stats) {
      if (stats.chunk == 0) {  // entering a segment: its shift, loaded one segment ago
        shift = next_shift;
        if (stats.segment + 1 < a.num_segments)
          next_shift = __ldg(a.x + (stats.segment + 1) * a.segment_size);
      }
      wait_copies<kPrefetch>();  // this step's chunk has landed
      float4 sv[kVecs];
      const float4* src = ring + stats.slot * kChunk + tid;
#pragma unroll
      for (int j = 0; j < kVecs; ++j) sv[j] = src[j * kThreads];
      mine.add(sv, valid(stats.first), shift);
      if (stats.chunk == chunks - 1) {  // the segment's last chunk: hand over the warp's sums
        const double n = mine.count, m = mine.mean;
        const double sum = warp_sum_all(n * m);
        const double sum_sq = warp_sum_all(static_cast<double>(mine.m2) + n * m * m);
        if (tid % 32 == 0) warp_partials[stats.segment & 1][warp] = make_double2(sum, sum_sq);
        barrier_arrive(partials_barrier(stats.segment));
        mine = ThreadStats{};
      }
      stats.advance(chunks, a.ring_chunks, stride);
    }

    if (do_norm) {
      if (norm.chunk == 0) {  // entering a segment: wait for its statistics
        barrier_wait(stats_barrier(norm.segment));
        norm_stats = segment_stats[norm.segment & 1];
      }
      float4* ys = y4 + norm.segment * vecs + norm.first;
      const int channel = norm.chunk < kMaxFoldedChunks ? chunk_channel[norm.chunk] : kNotFolded;
      if (channel != kNotFolded) {  // one multiply-add per element
        const auto group = params.for_segment(norm.segment);
#pragma unroll
        for (int j = 0; j < kVecs; ++j)
          if (j < norm_valid) {
            const int c = channel >= 0
                              ? channel
                              : static_cast<int>(group.channel((norm.first + j * kThreads) * 4));
            const float2 k = folded[norm.segment & 1][c];
            const float4 d = minus(nv[j], norm_stats.shift);
            store_streaming(
                ys + j * kThreads,
                make_float4(epilogue(fmaf(d.x, k.x, k.y)), epilogue(fmaf(d.y, k.x, k.y)),
                            epilogue(fmaf(d.z, k.x, k.y)), epilogue(fmaf(d.w, k.x, k.y))));
          }
      } else {
        const auto group = params.for_segment(norm.segment);
#pragma unroll
        for (int j = 0; j < kVecs; ++j)
          if (j < norm_valid)
            store_streaming(
                ys + j * kThreads,
                finish4(nv[j], norm_stats, group.at4((norm.first + j * kThreads) * 4), epilogue));
      }
      norm.advance(chunks, a.ring_chunks, stride);
    }
  }
}

template <class Epilogue>
cudaError_t launch_lookahead_groups(const ProblemShape& p, const LookaheadPlan& plan,
                                    const KernelArgs& args, ChannelParams params,
                                    Epilogue epilogue) {
  constexpr int kVecs = kLookaheadVecsPerThread, kPrefetch = kLookaheadPrefetchChunks;
  auto* arrivals = static_cast<unsigned*>(args.workspace);
  auto* partials =
      reinterpret_cast<SlicePartial*>(static_cast<char*>(args.workspace) + split_arrivals_bytes(p));
  cudaError_t error = cudaMemsetAsync(arrivals, 0, split_arrivals_bytes(p), args.stream);
  if (error != cudaSuccess) return error;

  auto kernel = lookahead_groups_kernel<Epilogue, kVecs, kPrefetch>;
  error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(plan.smem_bytes));
  if (error != cudaSuccess) return error;
  LookaheadArgs a{x_f32(args),      y_f32(args),      p.num_segments,
                  p.segment_size,   plan.piece_vecs,  plan.chunks_per_segment,
                  plan.lead_chunks, plan.ring_chunks, p.eps,
                  partials,         arrivals};
  void* kernel_args[] = {&a, &params, &epilogue};
  return cudaLaunchCooperativeKernel(
      reinterpret_cast<const void*>(kernel), dim3(static_cast<unsigned>(plan.blocks)),
      dim3(kLookaheadThreads), kernel_args, plan.smem_bytes, args.stream);
}

}  // namespace normbench::kernels
