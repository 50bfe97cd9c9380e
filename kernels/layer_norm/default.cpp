// layer_norm.default: the rule list of kernels/dispatch.hpp for LayerNorm. Supports every shape
// and format.
#include "kernels/dispatch.hpp"

namespace normbench::kernels {
NORMBENCH_REGISTER_KERNEL(make_dispatch_variant(
    Op::layer_norm, "layer_norm.default",
    {{"layer_norm.warp_per_row", "rows <= 1024", short_segments},
     {"layer_norm.row_in_registers", "16-bit data or a weight without bias", beyond_classic},
     {"layer_norm.two_phase", "rows >= 64K, affine", long_affine_segments},
     {"layer_norm.split_row", "rows >= 64K", long_segments},
     {"layer_norm.block_per_row", "", nullptr}}));
}  // namespace normbench::kernels
