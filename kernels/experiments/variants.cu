// TEMPORARY: measured once against the registered variants, then removed (kernels/NOTES.md).
#include "split_segment.cuh"

namespace normbench::kernels {
namespace {
cudaError_t gn_2x(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_segment<2>(p, d, a, channel_params(p, a), IdentityEpilogue{});
}
cudaError_t ln_2x(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& a) {
  return launch_split_segment<2>(p, d, a, row_params(a), IdentityEpilogue{});
}
std::optional<std::string> unsupported_2x(const ProblemShape& p, const DeviceCaps& d) {
  const SplitPlan plan = plan_split(p, d, 2);
  if (plan.unsupported.empty()) return std::nullopt;
  return plan.unsupported;
}
}  // namespace
NORMBENCH_REGISTER_KERNEL(make_variant(Op::group_norm, "group_norm.x_split_2x", "experiment", gn_2x,
                                       unsupported_2x, split_segment_workspace));
NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x_split_2x", "experiment", ln_2x,
                                       unsupported_2x, split_segment_workspace));
}  // namespace normbench::kernels
