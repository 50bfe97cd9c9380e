// group_norm.split_group: groups split across blocks that hold them in shared memory, x read
// once, several groups in flight (families/split_segment.cuh). Assumes group size % 4 == 0 and
// a group that fits in the shared memory of all SMs (~29 MB on an H100).
// group_norm_silu.split_group is the same kernel with SiLU on each output in registers.
#include "kernels/families/split_segment.cuh"

namespace normbench::kernels {
namespace {
template <class Epilogue>
KernelPlan plan(const ProblemShape& p, const DeviceCaps& device) {
  return plan_split_variant(
      p, device, [](const ProblemShape& p, const SplitPlan& split, const KernelArgs& a) {
        return launch_split_segment(p, split, a, channel_params(p, a), Epilogue{});
      });
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(
    planned_variant(Op::group_norm, "group_norm.split_group",
                    "groups split over cooperating blocks holding slices in smem; x read once",
                    plan<IdentityEpilogue>));
NORMBENCH_REGISTER_KERNEL(planned_variant(
    Op::group_norm_silu, "group_norm_silu.split_group",
    "groups split over cooperating blocks holding slices in smem; x read once; SiLU on y",
    plan<SiluEpilogue>));
}  // namespace normbench::kernels
