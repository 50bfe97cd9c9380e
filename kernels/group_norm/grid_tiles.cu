// group_norm.grid_tiles: GroupNorm of every format in one launch (grid_tiles_kernel.cuh):
// float32, bfloat16 and float16 data, weight and bias of the data's type or float32 (either
// may be absent), NCHW or channels-last. Contiguous tiles, partial sums per group and tile,
// grid barriers, tiles held in shared memory between the statistics and the normalization.
// For the diffusion shapes (kernels/NOTES.md, "GroupNorm for diffusion models").
// group_norm_silu.grid_tiles is the same kernel with SiLU on each output in registers: the same
// tiles, barriers, workspace and bytes, for the diffusion UNets' GroupNorm + SiLU.
#include "kernels/group_norm/grid_tiles_launch.cuh"

namespace normbench::kernels {

NORMBENCH_REGISTER_KERNEL(planned_variant(
    Op::group_norm, "group_norm.grid_tiles",
    "any dtype/layout: contiguous tiles held in smem, partial sums merged after a grid barrier",
    plan_grid_tiles_variant<IdentityEpilogue>, Accepts::everything()));
NORMBENCH_REGISTER_KERNEL(planned_variant(
    Op::group_norm_silu, "group_norm_silu.grid_tiles",
    "any dtype/layout: group_norm.grid_tiles's tiles and grid barriers, SiLU on y in registers",
    plan_grid_tiles_variant<SiluEpilogue>, Accepts::everything()));
}  // namespace normbench::kernels
