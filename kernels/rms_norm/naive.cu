// rms_norm.naive: the baseline (families/naive_kernel.cuh) without the mean pass: a pass for the
// mean square, a pass to normalize. Supports every shape and format.
#include "kernels/families/naive_launch.cuh"

namespace normbench::kernels {
namespace {
cudaError_t launch(const ProblemShape& p, const DeviceCaps&, const KernelArgs& args) {
  return launch_naive_rows<Norm::rms>(p, args, IdentityEpilogue{});
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::rms_norm, "rms_norm.naive",
    "baseline: a block of 256 threads per row, smem tree reduction, 2 passes over memory", launch,
    naive_unsupported, nullptr, /*is_baseline=*/true, Accepts::everything()));
}  // namespace normbench::kernels
