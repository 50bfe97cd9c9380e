// group_norm.default: the rule list of kernels/dispatch.hpp for GroupNorm. Supports every shape.
// The float32-only kernels (lookahead, split_group) decline other formats by themselves; every
// non-classic problem (bfloat16/float16 data or weights, channels-last, a weight without bias)
// takes grid_tiles, written for the diffusion models' shapes (kernels/NOTES.md).
#include "kernels/dispatch.hpp"

namespace normbench::kernels {
namespace {
bool non_classic(const ProblemShape& p) {
  return !p.is_classic();
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_dispatch_variant(
    Op::group_norm, "group_norm.default",
    {{"group_norm.lookahead", "groups >= 64K elements", long_segments},
     {"group_norm.split_group", "groups >= 64K elements", long_segments},
     {"group_norm.grid_tiles", "16-bit, channels-last or weight without bias", non_classic},
     {"group_norm.block_per_group", "", nullptr}}));
}  // namespace normbench::kernels
