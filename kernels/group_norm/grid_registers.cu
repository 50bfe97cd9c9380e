// group_norm.grid_registers: channels-last GroupNorm held in registers across the whole chip,
// one grid barrier. cluster_tiles' cut and kernel (cluster_tiles_kernel.cuh), but a chunk of
// groups is spread over as many blocks as one wave of the grid holds, and their partial sums
// meet through the workspace instead of a cluster's shared memory: x is read once and y
// written once on every SM where cluster_tiles' clusters would leave SMs idle. Declines shapes
// whose x does not fit the registers of one wave, and NCHW (grid_tiles takes them).
// group_norm_silu.grid_registers is the same kernel with SiLU on each output in registers.
#include "kernels/group_norm/cluster_tiles_launch.cuh"

namespace normbench::kernels {

NORMBENCH_REGISTER_KERNEL(
    planned_variant(Op::group_norm, "group_norm.grid_registers",
                    "channels-last: x in registers over the whole grid, one grid barrier",
                    plan_cluster_tiles_variant<true, IdentityEpilogue>, Accepts::everything()));
NORMBENCH_REGISTER_KERNEL(
    planned_variant(Op::group_norm_silu, "group_norm_silu.grid_registers",
                    "channels-last: group_norm.grid_registers's grid, SiLU on y in registers",
                    plan_cluster_tiles_variant<true, SiluEpilogue>, Accepts::everything()));
}  // namespace normbench::kernels
