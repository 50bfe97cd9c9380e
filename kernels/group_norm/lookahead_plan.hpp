// Host side of lookahead_groups.cuh: how a problem is cut across the SMs, which shapes
// it cannot take, and the workspace it needs. Plain C++, so supports() needs no CUDA call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "kernels/problem_shape.hpp"
#include "kernels/registry.hpp"

namespace normbench::kernels {

// 15 data warps that move and normalize x, and one warp that runs the cross-block exchange
// (16 warps: 4 per SM sub-partition, so each may use 128 registers).
constexpr int kLookaheadDataWarps = 15;
constexpr int kLookaheadDataThreads = 32 * kLookaheadDataWarps;
constexpr int kLookaheadThreads = kLookaheadDataThreads + 32;
// Groups of at most this many channels get their weight, bias, mean and rstd folded into one
// multiply-add per element, for chunks 0..kMaxFoldedChunks-1 of a segment that lie in one
// channel; the rest look weight and bias up per float4.
constexpr int kMaxFoldedChannels = 128;
constexpr int kMaxFoldedChunks = 64;
// Shared memory kept back from the opt-in maximum for the kernel's static shared memory.
constexpr size_t kLookaheadStaticSmemReserve = 4096;

// The tuning measured fastest on problem B (kernels/NOTES.md): 3 float4s per thread and chunk,
// statistics 2 chunks ahead of the normalization, copies 3 chunks ahead of the statistics.
constexpr int kLookaheadVecsPerThread = 3;
constexpr int kLookaheadLeadChunks = 2;
constexpr int kLookaheadPrefetchChunks = 3;

struct LookaheadPlan {
  int blocks = 0;              // one per SM
  int chunk_vecs = 0;          // ring slot: kLookaheadDataThreads * vecs_per_thread float4s
  int chunks_per_segment = 0;  // steps a block takes per segment
  int piece_vecs = 0;          // float4s a block reads per step (<= chunk_vecs): the segment
                               // split evenly over blocks * chunks_per_segment pieces
  int lead_chunks = 0;         // how far the statistics run ahead of the normalization
  int ring_chunks = 0;         // slots of the shared-memory ring: a group + lead + prefetch
  size_t smem_bytes = 0;       // dynamic shared memory: the ring
  std::string unsupported;     // non-empty: why the problem cannot run this way
};

// `vecs_per_thread`, `lead_chunks` and `prefetch_chunks` are the kernel's tuning; the lead is
// cut to chunks_per_segment - 1 (see the .cpp).
LookaheadPlan plan_lookahead(const ProblemShape& p, const DeviceCaps& device,
                             int vecs_per_thread = kLookaheadVecsPerThread,
                             int lead_chunks = kLookaheadLeadChunks,
                             int prefetch_chunks = kLookaheadPrefetchChunks);
// As the split kernel's: arrival counters (split_arrivals_bytes), then one SlicePartial per
// segment and block.
size_t lookahead_workspace(const ProblemShape& p, const LookaheadPlan& plan);

}  // namespace normbench::kernels
