// group_norm.grid_tiles: GroupNorm of every format in one launch (grid_tiles_kernel.cuh):
// float32, bfloat16 and float16 data, weight and bias of the data's type or float32 (either
// may be absent), NCHW or channels-last. Contiguous tiles, partial sums per group and tile,
// grid barriers, tiles held in shared memory between the statistics and the normalization.
// For the diffusion shapes (kernels/NOTES.md, "GroupNorm for diffusion models").
#include "kernels/group_norm/grid_tiles_launch.cuh"

namespace normbench::kernels {
namespace {

KernelPlan plan(const ProblemShape& p, const DeviceCaps& device) {
  return plan_grid_tiles_variant<IdentityEpilogue>(p, device);
}

}  // namespace

NORMBENCH_REGISTER_KERNEL(planned_variant(
    Op::group_norm, "group_norm.grid_tiles",
    "any dtype/layout: contiguous tiles held in smem, partial sums merged after a grid barrier",
    plan, Accepts::everything()));
}  // namespace normbench::kernels
