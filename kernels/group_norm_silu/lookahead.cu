// group_norm_silu.lookahead: group_norm.lookahead (group_norm/lookahead_groups.cuh) with SiLU
// on each output in registers: x read from DRAM once into shared-memory rings, statistics run
// ahead of the normalization. Assumes float32 data, group size % 4 == 0 and a group that fits
// in the rings of all SMs (about 12 MB on an H100).
#include "kernels/group_norm/lookahead_groups.cuh"

namespace normbench::kernels {
namespace {
KernelPlan plan(const ProblemShape& p, const DeviceCaps& device) {
  const LookaheadPlan lookahead = plan_lookahead(p, device);
  if (!lookahead.unsupported.empty()) return KernelPlan::declined(lookahead.unsupported);
  KernelPlan plan;
  plan.workspace_bytes = lookahead_workspace(p, lookahead);
  plan.launch = [p, lookahead](const KernelArgs& args) {
    return launch_lookahead_groups(p, lookahead, args, channel_params(p, args), SiluEpilogue{});
  };
  return plan;
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(planned_variant(
    Op::group_norm_silu, "group_norm_silu.lookahead",
    "groups spread over all SMs, x read once into smem rings, stats run ahead; SiLU on y", plan));
}  // namespace normbench::kernels
