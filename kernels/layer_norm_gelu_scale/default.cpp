// layer_norm_gelu_scale.default: the rule list of kernels/dispatch.hpp for the fused
// LayerNorm + GELU + scale. Supports every shape and format.
#include "kernels/dispatch.hpp"

namespace normbench::kernels {
NORMBENCH_REGISTER_KERNEL(make_dispatch_variant(
    Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.default",
    {{"layer_norm_gelu_scale.warp_per_row", "rows <= 1024", short_segments},
     {"layer_norm_gelu_scale.row_in_registers", "16-bit data or a weight without bias",
      beyond_classic},
     {"layer_norm_gelu_scale.two_phase", "rows >= 64K, affine", long_affine_segments},
     {"layer_norm_gelu_scale.split_row", "rows >= 64K", long_segments},
     {"layer_norm_gelu_scale.block_per_row", "", nullptr}}));
}  // namespace normbench::kernels
