#include "kernels/group_norm/lookahead_plan.hpp"

#include <algorithm>
#include <cstdio>

#include "kernels/families/split_plan.hpp"

namespace normbench::kernels {

LookaheadPlan plan_lookahead(const ProblemShape& p, const DeviceCaps& device, int vecs_per_thread,
                             int lead_chunks, int prefetch_chunks) {
  LookaheadPlan plan;
  if (p.segment_size % 4 != 0) {
    plan.unsupported = "segment size is not a multiple of 4 (16-byte pieces)";
    return plan;
  }
  if (!device.cooperative_launch || device.sm_count <= 0) {
    plan.unsupported = "device has no cooperative launch";
    return plan;
  }
  // merge_partials takes at most kMaxBlocksPerSegment partials.
  plan.blocks = std::min(device.sm_count, kMaxBlocksPerSegment);
  plan.chunk_vecs = kLookaheadDataThreads * vecs_per_thread;
  const int64_t vecs = p.segment_size / 4;
  const int64_t chunks = ceil_div(vecs, int64_t{plan.blocks} * plan.chunk_vecs);
  if (chunks > (int64_t{1} << 20)) {
    plan.unsupported = "group too long";
    return plan;
  }
  plan.chunks_per_segment = static_cast<int>(std::max<int64_t>(chunks, 1));
  plan.piece_vecs = static_cast<int>(
      std::max<int64_t>(ceil_div(vecs, int64_t{plan.blocks} * plan.chunks_per_segment), 1));
  // The statistics handed to the data warps are double-buffered by group parity: the exchange
  // warp overwrites group s's as soon as the data warps have handed over group s + 2's
  // partials, so they must have normalized all of group s by then: lead < chunks per group.
  plan.lead_chunks = std::min(lead_chunks, plan.chunks_per_segment - 1);
  plan.ring_chunks = plan.chunks_per_segment + plan.lead_chunks + prefetch_chunks;
  plan.smem_bytes =
      static_cast<size_t>(plan.ring_chunks) * static_cast<size_t>(plan.chunk_vecs) * 16;
  const size_t room = device.shared_memory_per_block_optin > kLookaheadStaticSmemReserve
                          ? device.shared_memory_per_block_optin - kLookaheadStaticSmemReserve
                          : 0;
  if (plan.smem_bytes > room) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "a group (%.1f MB) needs a %zu KB ring per SM, more than its %zu KB of shared "
                  "memory",
                  4e-6 * static_cast<double>(p.segment_size), plan.smem_bytes / 1024, room / 1024);
    plan.unsupported = text;
  }
  return plan;
}

size_t lookahead_workspace(const ProblemShape& p, const LookaheadPlan& plan) {
  return split_arrivals_bytes(p) + static_cast<size_t>(p.num_segments) *
                                       static_cast<size_t>(plan.blocks) * sizeof(SlicePartial);
}

}  // namespace normbench::kernels
