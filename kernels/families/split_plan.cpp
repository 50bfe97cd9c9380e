#include "kernels/families/split_plan.hpp"

#include <algorithm>
#include <cstdio>

namespace normbench::kernels {

namespace {
std::string megabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
  return text;
}
}  // namespace

SplitPlan plan_split(const ProblemShape& p, const DeviceCaps& device) {
  SplitPlan plan;
  if (p.segment_size % 4 != 0) {
    plan.unsupported = "segment size is not a multiple of 4 (16-byte slices)";
    return plan;
  }
  if (!device.cooperative_launch || device.sm_count <= 0) {
    plan.unsupported = "device has no cooperative launch";
    return plan;
  }
  if (device.shared_memory_per_block_optin <= kSplitStaticSmemReserve + 16) {
    plan.unsupported = "device has too little shared memory";
    return plan;
  }
  const int64_t vecs = p.segment_size / 4;
  const auto vecs_per_block =
      static_cast<int64_t>((device.shared_memory_per_block_optin - kSplitStaticSmemReserve) / 16);
  // One 1024-thread block per SM; merge_partials takes at most kMaxBlocksPerSegment.
  const int64_t resident = std::min<int64_t>(device.sm_count, kMaxBlocksPerSegment);
  const int64_t min_blocks = ceil_div(vecs, vecs_per_block);
  if (min_blocks > resident) {
    plan.unsupported = "a segment (" + megabytes(4.0 * static_cast<double>(p.segment_size)) +
                       ") exceeds the shared memory of all " + std::to_string(resident) + " SMs (" +
                       megabytes(static_cast<double>(resident * vecs_per_block * 16)) + ")";
    return plan;
  }
  const int64_t sets = std::min(resident / min_blocks, p.num_segments);
  // Spread each segment over as many SMs as the sets leave free, but give every thread at
  // least one float4: tiny slices would only add merging work.
  const int64_t most_useful = std::max<int64_t>(min_blocks, vecs / kSplitThreads);
  const int64_t blocks = std::clamp(resident / sets, min_blocks, most_useful);
  plan.sets = static_cast<int>(sets);
  plan.blocks_per_segment = static_cast<int>(blocks);
  plan.smem_bytes = static_cast<size_t>(ceil_div(vecs, blocks) * 16);
  return plan;
}

size_t split_arrivals_bytes(const ProblemShape& p) {
  return static_cast<size_t>(ceil_div(p.num_segments * 4, 16) * 16);
}

size_t split_segment_workspace(const ProblemShape& p, const SplitPlan& plan) {
  return split_arrivals_bytes(p) + static_cast<size_t>(p.num_segments) *
                                       static_cast<size_t>(plan.blocks_per_segment) *
                                       sizeof(SlicePartial);
}

}  // namespace normbench::kernels
