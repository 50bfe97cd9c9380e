// group_norm_silu.split_group: group_norm.split_group (families/split_segment.cuh) with SiLU on
// each output in registers: x read once. Assumes float32 data, group size % 4 == 0 and a group
// that fits in the shared memory of all SMs (~29 MB on an H100).
#include "kernels/families/split_segment.cuh"

namespace normbench::kernels {
namespace {
KernelPlan plan(const ProblemShape& p, const DeviceCaps& device) {
  return plan_split_variant(
      p, device, [](const ProblemShape& p, const SplitPlan& split, const KernelArgs& a) {
        return launch_split_segment(p, split, a, channel_params(p, a), SiluEpilogue{});
      });
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(planned_variant(
    Op::group_norm_silu, "group_norm_silu.split_group",
    "groups split over cooperating blocks holding slices in smem; x read once; SiLU on y", plan));
}  // namespace normbench::kernels
