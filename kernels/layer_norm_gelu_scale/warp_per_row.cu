// layer_norm_gelu_scale.warp_per_row: rows of up to 1024 elements in registers, 4 to 32 lanes
// per row (families/rows_in_registers.cuh), GELU * scale fused. Assumes row size % 4 == 0.
#include "kernels/families/rows_in_registers.cuh"

namespace normbench::kernels {
namespace {
cudaError_t launch(const ProblemShape& p, const DeviceCaps&, const KernelArgs& args) {
  return launch_rows_in_registers(p, args, row_params(args), gelu_scale_poly(p));
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.warp_per_row",
    "rows <= 1024 held in registers by 4-32 lanes, shuffle reductions, GELU * scale fused", launch,
    rows_in_registers_unsupported));
}  // namespace normbench::kernels
