// group_norm.lookahead: every SM takes a piece of each group, x is read from DRAM once into a
// shared-memory ring, and the statistics of later groups are computed while earlier ones are
// normalized, so that DRAM never waits for the cross-block exchange
// (lookahead_groups.cuh). Assumes group size % 4 == 0 and a group that fits in the
// rings of all SMs (about 12 MB on an H100). group_norm_silu.lookahead is the same kernel with
// SiLU on each output in registers (its epilogue).
#include "kernels/group_norm/lookahead_groups.cuh"

namespace normbench::kernels {
namespace {
// The lookahead plan is made once per problem; support, workspace and launch all use it.
template <class Epilogue>
KernelPlan plan(const ProblemShape& p, const DeviceCaps& device) {
  const LookaheadPlan lookahead = plan_lookahead(p, device);
  if (!lookahead.unsupported.empty()) return KernelPlan::declined(lookahead.unsupported);
  KernelPlan plan;
  plan.workspace_bytes = lookahead_workspace(p, lookahead);
  plan.launch = [p, lookahead](const KernelArgs& args) {
    return launch_lookahead_groups(p, lookahead, args, channel_params(p, args), Epilogue{});
  };
  return plan;
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(planned_variant(
    Op::group_norm, "group_norm.lookahead",
    "groups spread over all SMs, x read once into smem rings, stats run ahead of normalization",
    plan<IdentityEpilogue>));
NORMBENCH_REGISTER_KERNEL(planned_variant(
    Op::group_norm_silu, "group_norm_silu.lookahead",
    "groups spread over all SMs, x read once into smem rings, stats run ahead; SiLU on y",
    plan<SiluEpilogue>));
}  // namespace normbench::kernels
