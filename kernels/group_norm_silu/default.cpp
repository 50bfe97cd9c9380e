// group_norm_silu.default: group_norm.default's rule list (kernels/dispatch.hpp) over the fused
// variants, each the GroupNorm kernel of the same name with SiLU on y: the same shape picks the
// same kernel with the same bytes. Supports every shape.
#include "kernels/dispatch.hpp"

namespace normbench::kernels {
namespace {
bool non_classic(const ProblemShape& p) {
  return !p.is_classic();
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_dispatch_variant(
    Op::group_norm_silu, "group_norm_silu.default",
    {{"group_norm_silu.lookahead", "groups >= 64K elements", long_segments},
     {"group_norm_silu.split_group", "groups >= 64K elements", long_segments},
     {"group_norm_silu.grid_tiles", "16-bit, channels-last or weight without bias", non_classic},
     {"group_norm_silu.block_per_group", "", nullptr}}));
}  // namespace normbench::kernels
