// TEMPORARY: variants measured once against each other, then removed (kernels/NOTES.md keeps
// the numbers).
#include "rows_in_registers.cuh"
#include "split_pipelined.cuh"
#include "split_segment.cuh"
#include "two_phase_rows.cuh"

namespace normbench::kernels {
namespace {
cudaError_t ln_v2(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_segment<false>(p, d, a, row_params(a), IdentityEpilogue{});
}
cudaError_t gn_v2(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_segment<false>(p, d, a, channel_params(p, a), IdentityEpilogue{});
}
cudaError_t gn_stagger(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_segment<false, true>(p, d, a, channel_params(p, a), IdentityEpilogue{});
}
cudaError_t ln_two_phase(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_two_phase_rows(p, d, a, IdentityEpilogue{});
}
cudaError_t gn_lagged(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_pipelined(p, d, a, channel_params(p, a), IdentityEpilogue{});
}
template <int kRows, int kMinBlocks, bool kHints>
cudaError_t lngs(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_rows_in_registers_as<16, 1, RowParams, GeluScaleEpilogue, kRows, kMinBlocks, kHints>(
      p, d, a, row_params(a), gelu_scale(p));
}
template <int kRows, int kMinBlocks, bool kHints>
cudaError_t lngs_poly(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_rows_in_registers_as<16, 1, RowParams, GeluScalePolyEpilogue, kRows, kMinBlocks, kHints>(
      p, d, a, row_params(a), GeluScalePolyEpilogue{static_cast<float>(p.scale)});
}
template <int kRows, int kMinBlocks, bool kHints>
cudaError_t ln64(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_rows_in_registers_as<16, 1, RowParams, IdentityEpilogue, kRows, kMinBlocks, kHints>(
      p, d, a, row_params(a), IdentityEpilogue{});
}
std::optional<std::string> only_rows_of_64(const ProblemShape& p, const DeviceCaps&) {
  if (p.segment_size != 64) return "experiment for rows of 64";
  return std::nullopt;
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x_v2", "experiment", ln_v2,
                                       split_segment_unsupported, split_segment_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::group_norm, "group_norm.x_v2", "experiment", gn_v2,
                                       split_segment_unsupported, split_segment_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::group_norm, "group_norm.x_stagger", "experiment", gn_stagger,
                                       split_segment_unsupported, split_segment_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x_two_phase", "experiment",
                                       ln_two_phase, two_phase_unsupported, two_phase_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_poly_nohint",
                                       "experiment", lngs_poly<1, 1, false>, only_rows_of_64));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::group_norm, "group_norm.x_lagged", "experiment", gn_lagged,
                                       split_pipelined_unsupported, split_pipelined_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_occ8",
                                       "experiment", lngs<1, 8, true>, only_rows_of_64));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_nohint",
                                       "experiment", lngs<1, 1, false>, only_rows_of_64));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_occ8_nohint",
                                       "experiment", lngs<1, 8, false>, only_rows_of_64));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_rows2_occ8",
                                       "experiment", lngs<2, 6, true>, only_rows_of_64));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_poly",
                                       "experiment", lngs_poly<1, 1, true>, only_rows_of_64));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_poly_occ8",
                                       "experiment", lngs_poly<1, 8, true>, only_rows_of_64));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_poly_rows2",
                                       "experiment", lngs_poly<2, 6, true>, only_rows_of_64));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x_ln64", "experiment",
                                       ln64<1, 1, true>, only_rows_of_64));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x_ln64_occ8_nohint", "experiment",
                                       ln64<1, 8, false>, only_rows_of_64));
}  // namespace normbench::kernels
