// add_rms_norm.naive: the baseline (families/naive_kernel.cuh): a pass that stores s = x +
// residual, then the RMSNorm passes over the stored s. Supports every shape and format.
#include "kernels/families/naive_launch.cuh"

namespace normbench::kernels {
namespace {
cudaError_t launch(const ProblemShape& p, const DeviceCaps&, const KernelArgs& args) {
  return launch_naive_rows<Norm::add_rms>(p, args, IdentityEpilogue{});
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::add_rms_norm, "add_rms_norm.naive",
    "baseline: a block of 256 threads per row, smem tree reduction; stores s, then 2 passes over "
    "it",
    launch, naive_unsupported, nullptr, /*is_baseline=*/true, Accepts::everything()));
}  // namespace normbench::kernels
