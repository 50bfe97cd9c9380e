// layer_norm_gelu_scale.two_phase: long rows with weight and bias read once
// (families/two_phase_rows.cuh), GELU * scale fused. Assumes row size % 4 == 0.
#include "kernels/families/two_phase_rows.cuh"

namespace normbench::kernels {
namespace {
cudaError_t launch(const ProblemShape& p, const DeviceCaps& device, const KernelArgs& args) {
  return launch_two_phase_rows(p, device, args, gelu_scale_poly(p));
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::layer_norm_gelu_scale, "layer_norm_gelu_scale.two_phase",
    "row stats in one pass, then column tiles with weight/bias in registers; GELU * scale", launch,
    two_phase_unsupported, two_phase_workspace));
}  // namespace normbench::kernels
