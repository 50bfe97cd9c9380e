// group_norm_silu.grid_tiles: group_norm.grid_tiles (group_norm/grid_tiles_kernel.cuh) with SiLU
// on each output in registers, for every format (float32, bfloat16, float16 data; weight and
// bias in the data's type or float32, either absent; NCHW or channels-last): the same tiles,
// barriers, workspace and bytes. For the diffusion UNets' GroupNorm + SiLU.
#include "kernels/group_norm/grid_tiles_launch.cuh"

namespace normbench::kernels {
namespace {
KernelPlan plan(const ProblemShape& p, const DeviceCaps& device) {
  return plan_grid_tiles_variant<SiluEpilogue>(p, device);
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(planned_variant(
    Op::group_norm_silu, "group_norm_silu.grid_tiles",
    "any dtype/layout: group_norm.grid_tiles's tiles and grid barriers, SiLU on y in registers",
    plan, Accepts::everything()));
}  // namespace normbench::kernels
