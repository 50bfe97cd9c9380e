// group_norm.split_group: groups split across blocks that hold them in shared memory, x read
// once, several groups in flight (common/split_segment.cuh). Assumes group size % 4 == 0 and
// a group that fits in the shared memory of all SMs (~29 MB on an H100).
#include "kernels/families/split_segment.cuh"

namespace normbench::kernels {
namespace {
cudaError_t launch(const ProblemShape& p, const DeviceCaps& device, const KernelArgs& args) {
  return launch_split_segment(p, device, args, channel_params(p, args), IdentityEpilogue{});
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(
    make_variant(Op::group_norm, "group_norm.split_group",
                 "groups split over cooperating blocks holding slices in smem; x read once", launch,
                 split_segment_unsupported, split_segment_workspace));
}  // namespace normbench::kernels
