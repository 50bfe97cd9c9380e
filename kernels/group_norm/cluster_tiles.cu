// group_norm.cluster_tiles: channels-last GroupNorm of the small and mid-sized diffusion shapes
// in one launch without a grid barrier: thread block clusters of up to 16 blocks each own a
// chunk of whole groups of one sample, hold it in registers and meet through distributed
// shared memory (cluster_tiles_kernel.cuh). Every dtype and weight/bias format; NCHW and
// chunks that do not fit a cluster's registers are declined (grid_tiles takes them).
// group_norm_silu.cluster_tiles is the same kernel with SiLU on each output in registers.
#include "kernels/group_norm/cluster_tiles_launch.cuh"

namespace normbench::kernels {

NORMBENCH_REGISTER_KERNEL(planned_variant(
    Op::group_norm, "group_norm.cluster_tiles",
    "channels-last: a cluster per chunk of groups, held in registers, sums via DSMEM",
    plan_cluster_tiles_variant<false, IdentityEpilogue>, Accepts::everything()));
NORMBENCH_REGISTER_KERNEL(
    planned_variant(Op::group_norm_silu, "group_norm_silu.cluster_tiles",
                    "channels-last: group_norm.cluster_tiles's clusters, SiLU on y in registers",
                    plan_cluster_tiles_variant<false, SiluEpilogue>, Accepts::everything()));
}  // namespace normbench::kernels
