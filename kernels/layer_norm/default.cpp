// layer_norm.default: picks warp_per_row, two_phase, split_row or block_per_row by row size and
// affine (common/dispatch.hpp). Supports every shape.
#include "kernels/dispatch.hpp"

namespace normbench::kernels {
namespace {
const DispatchTable kTable{"layer_norm.warp_per_row", "layer_norm.two_phase", "",
                           "layer_norm.split_row", "layer_norm.block_per_row"};
size_t workspace(const ProblemShape& p, const DeviceCaps& d) {
  return dispatch_workspace(kTable, p, d);
}
cudaError_t launch(const ProblemShape& p, const DeviceCaps& d, const KernelArgs& args) {
  return dispatch_launch(kTable, p, d, args);
}
const KernelVariant* target(const ProblemShape& p, const DeviceCaps& d) {
  return dispatch(kTable, p, d);
}
KernelVariant variant(KernelVariant v) {
  v.dispatches_to = target;
  return v;
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(
    variant(make_variant(Op::layer_norm, "layer_norm.default",
                         "dispatch: warp_per_row (rows <= 1024), two_phase (rows >= "
                         "64K, affine), split_row (>= 64K), else block_per_row",
                         launch, nullptr, workspace)));
}  // namespace normbench::kernels
