// group_norm.lookahead: every SM takes a piece of each group, x is read from DRAM once into a
// shared-memory ring, and the statistics of later groups are computed while earlier ones are
// normalized, so that DRAM never waits for the cross-block exchange
// (common/lookahead_groups.cuh). Assumes group size % 4 == 0 and a group that fits in the
// rings of all SMs (about 12 MB on an H100).
#include "kernels/group_norm/lookahead_groups.cuh"

namespace normbench::kernels {
namespace {
cudaError_t launch(const ProblemShape& p, const DeviceCaps& device, const KernelArgs& args) {
  return launch_lookahead_groups(p, device, args, channel_params(p, args), IdentityEpilogue{});
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::group_norm, "group_norm.lookahead",
    "groups spread over all SMs, x read once into smem rings, stats run ahead of normalization",
    launch, lookahead_unsupported, lookahead_workspace));
}  // namespace normbench::kernels
