// TEMPORARY: variants measured once against each other, then removed (kernels/NOTES.md keeps
// the numbers).
#include "rows_in_registers.cuh"
#include "split_segment.cuh"

namespace normbench::kernels {
namespace {
cudaError_t ln_split_plain(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_segment<false>(p, d, a, RowParams<false>{a.weight, a.bias}, IdentityEpilogue{});
}
cudaError_t ln_split_evict(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_segment<false>(p, d, a, RowParams<true>{a.weight, a.bias}, IdentityEpilogue{});
}
cudaError_t ln_split_prefetch_only(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_segment<true>(p, d, a, RowParams<false>{a.weight, a.bias}, IdentityEpilogue{});
}
cudaError_t gn_split_plain(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_segment<false>(p, d, a, channel_params(p, a), IdentityEpilogue{});
}
cudaError_t lngs_lanes8(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  if (p.segment_size != 64) return cudaErrorNotSupported;
  return launch_rows_in_registers_as<8, 2>(p, d, a, row_params(a), gelu_scale(p));
}
cudaError_t lngs_lanes4(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  if (p.segment_size != 64) return cudaErrorNotSupported;
  return launch_rows_in_registers_as<4, 4>(p, d, a, row_params(a), gelu_scale(p));
}
std::optional<std::string> only_rows_of_64(const ProblemShape& p, const DeviceCaps&) {
  if (p.segment_size != 64) return "experiment for rows of 64";
  return std::nullopt;
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x_split_plain", "experiment",
                                       ln_split_plain, split_segment_unsupported, split_segment_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x_split_evict", "experiment",
                                       ln_split_evict, split_segment_unsupported, split_segment_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x_split_prefetch_only", "experiment",
                                       ln_split_prefetch_only, split_segment_unsupported, split_segment_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::group_norm, "group_norm.x_split_plain", "experiment",
                                       gn_split_plain, split_segment_unsupported, split_segment_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_lanes8",
                                       "experiment", lngs_lanes8, only_rows_of_64));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.x_lanes4",
                                       "experiment", lngs_lanes4, only_rows_of_64));
}  // namespace normbench::kernels
