// TEMPORARY: measured once against the registered variant, then removed (kernels/NOTES.md).
#include "rows_in_registers.cuh"

namespace normbench::kernels {
namespace {
cudaError_t lngs_full_grid(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  if (p.segment_size != 64) return cudaErrorNotSupported;
  return launch_rows_in_registers_as<16, 1, RowParams, GeluScalePolyEpilogue, false>(p, d, a, row_params(a),
                                                                                    gelu_scale_poly(p));
}
cudaError_t lngs_full_grid_8(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  if (p.segment_size != 64) return cudaErrorNotSupported;
  return launch_rows_in_registers_as<8, 2, RowParams, GeluScalePolyEpilogue, false>(p, d, a, row_params(a),
                                                                                   gelu_scale_poly(p));
}
std::optional<std::string> only_rows_of_64(const ProblemShape& p, const DeviceCaps&) {
  if (p.segment_size != 64) return "experiment for rows of 64";
  return std::nullopt;
}
}  // namespace
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_full_grid",
                                       "experiment", lngs_full_grid, only_rows_of_64));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_full_grid_8",
                                       "experiment", lngs_full_grid_8, only_rows_of_64));
}  // namespace normbench::kernels
