// group_norm.default: picks lookahead (or split_group where lookahead declines) for groups of
// 64K elements or more, else block_per_group (common/dispatch.hpp). Supports every shape.
#include "kernels/dispatch.hpp"

namespace normbench::kernels {
namespace {
const DispatchTable kTable{"", "", "group_norm.lookahead", "group_norm.split_group",
                           "group_norm.block_per_group"};
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
    variant(make_variant(Op::group_norm, "group_norm.default",
                         "dispatch: lookahead or split_group (groups >= 64K elements), else "
                         "block_per_group",
                         launch, nullptr, workspace)));
}  // namespace normbench::kernels
