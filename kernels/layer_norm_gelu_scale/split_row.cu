// layer_norm_gelu_scale.split_row: long rows split across blocks that hold them in shared
// memory, x read once (common/split_segment.cuh), GELU * scale fused. Assumes row size % 4
// == 0 and a row that fits in the shared memory of all SMs (~29 MB on an H100).
#include "kernels/families/split_segment.cuh"

namespace normbench::kernels {
namespace {
cudaError_t launch(const ProblemShape& p, const DeviceCaps& device, const KernelArgs& args) {
  return launch_split_segment(p, device, args, row_params(args), gelu_scale_poly(p));
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.split_row",
    "rows split over cooperating blocks holding slices in smem; x read once; GELU * scale", launch,
    split_segment_unsupported, split_segment_workspace));
}  // namespace normbench::kernels
