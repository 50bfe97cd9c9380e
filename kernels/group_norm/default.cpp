// group_norm.default: the rule list of kernels/dispatch.hpp for GroupNorm. Supports every shape.
#include "kernels/dispatch.hpp"

namespace normbench::kernels {
NORMBENCH_REGISTER_KERNEL(
    make_dispatch_variant(Op::group_norm, "group_norm.default",
                          {{"group_norm.lookahead", "groups >= 64K elements", long_segments},
                           {"group_norm.split_group", "groups >= 64K elements", long_segments},
                           {"group_norm.block_per_group", "", nullptr}}));
}  // namespace normbench::kernels
