// TEMPORARY: variants measured once against each other, then removed (kernels/NOTES.md keeps
// the numbers).
#include "rows_in_registers.cuh"
#include "split_pipelined.cuh"
#include "split_segment.cuh"

namespace normbench::kernels {
namespace {
cudaError_t ln_v2(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_segment<false>(p, d, a, RowParams<true>{a.weight, a.bias}, IdentityEpilogue{});
}
cudaError_t ln_v2_plain_wb(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_segment<false>(p, d, a, RowParams<false>{a.weight, a.bias}, IdentityEpilogue{});
}
cudaError_t ln_ring(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_pipelined(p, d, a, RowParams<true>{a.weight, a.bias}, IdentityEpilogue{});
}
cudaError_t ln_ring_plain_wb(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_pipelined(p, d, a, RowParams<false>{a.weight, a.bias}, IdentityEpilogue{});
}
cudaError_t gn_v2(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_segment<false>(p, d, a, channel_params(p, a), IdentityEpilogue{});
}
cudaError_t gn_ring(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_pipelined(p, d, a, channel_params(p, a), IdentityEpilogue{});
}
cudaError_t lngs_rows2(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_rows_in_registers_as<16, 1, RowParams<>, GeluScaleEpilogue, 2>(p, d, a, row_params(a), gelu_scale(p));
}
cudaError_t lngs_rows4(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_rows_in_registers_as<16, 1, RowParams<>, GeluScaleEpilogue, 4>(p, d, a, row_params(a), gelu_scale(p));
}
cudaError_t ln_rows64(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_rows_in_registers_as<16, 1, RowParams<>, IdentityEpilogue, 1>(p, d, a, row_params(a), IdentityEpilogue{});
}
std::optional<std::string> only_rows_of_64(const ProblemShape& p, const DeviceCaps&) {
  if (p.segment_size != 64) return "experiment for rows of 64";
  return std::nullopt;
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x_v2", "experiment", ln_v2,
                                       split_segment_unsupported, split_segment_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x_v2_plain_wb", "experiment",
                                       ln_v2_plain_wb, split_segment_unsupported, split_segment_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x_ring", "experiment", ln_ring,
                                       split_pipelined_unsupported, split_pipelined_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x_ring_plain_wb", "experiment",
                                       ln_ring_plain_wb, split_pipelined_unsupported, split_pipelined_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::group_norm, "group_norm.x_v2", "experiment", gn_v2,
                                       split_segment_unsupported, split_segment_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::group_norm, "group_norm.x_ring", "experiment", gn_ring,
                                       split_pipelined_unsupported, split_pipelined_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_rows2",
                                       "experiment", lngs_rows2, only_rows_of_64));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_rows4",
                                       "experiment", lngs_rows4, only_rows_of_64));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x_rows64", "experiment",
                                       ln_rows64, only_rows_of_64));
}  // namespace normbench::kernels
