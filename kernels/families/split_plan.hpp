// Host side of split_segment.cuh: how a problem is cut across the SMs, which shapes it
// cannot take, and the workspace it needs. Plain C++, so supports() needs no CUDA call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "kernels/problem_shape.hpp"
#include "kernels/registry.hpp"

namespace normbench::kernels {

constexpr int kSplitThreads = 1024;
// Shared memory kept back from the opt-in maximum for the kernel's static shared memory.
constexpr size_t kSplitStaticSmemReserve = 2048;

// merge_partials holds at most 5 partials per lane of one warp in registers.
constexpr int kMaxBlocksPerSegment = 160;

// One block's statistics of its slice, published to the other blocks of its set.
struct SlicePartial {
  double count;
  double mean;  // of (x - shift) over the slice
  double m2;    // sum of squared deviations from that mean
};

struct SplitPlan {
  int blocks_per_segment = 0;
  int sets = 0;             // segments in flight at once
  size_t smem_bytes = 0;    // dynamic shared memory per block: the largest slice
  std::string unsupported;  // non-empty: why the problem cannot run this way
};

SplitPlan plan_split(const ProblemShape& p, const DeviceCaps& device);
// Arrival counters (one per segment, zeroed before each launch, 16-byte padded), then the
// partials.
size_t split_arrivals_bytes(const ProblemShape& p);
size_t split_segment_workspace(const ProblemShape& p, const SplitPlan& plan);

// A split variant's KernelPlan: the split plan made once, its launch given that plan.
// `launch(problem, split_plan, args)` enqueues the kernel.
template <class Launch>
KernelPlan plan_split_variant(const ProblemShape& p, const DeviceCaps& device, Launch launch) {
  const SplitPlan split = plan_split(p, device);
  if (!split.unsupported.empty()) return KernelPlan::declined(split.unsupported);
  KernelPlan plan;
  plan.workspace_bytes = split_segment_workspace(p, split);
  plan.launch = [p, split, launch](const KernelArgs& args) { return launch(p, split, args); };
  return plan;
}

}  // namespace normbench::kernels
