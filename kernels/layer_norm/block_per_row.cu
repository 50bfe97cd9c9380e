// layer_norm.block_per_row: the general kernel (families/block_per_segment.cuh). Supports every
// shape and format; the dispatch's fallback.
#include "kernels/families/block_per_segment.cuh"

namespace normbench::kernels {
namespace {
cudaError_t launch(const ProblemShape& p, const DeviceCaps& device, const KernelArgs& args) {
  return launch_block_per_row<Norm::centered>(p, device, args, IdentityEpilogue{});
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(
    make_variant(Op::layer_norm, "layer_norm.block_per_row",
                 "general: a block of 512 threads per row, CUB reductions, 3 passes, any shape",
                 launch, nullptr, nullptr, /*is_baseline=*/false, Accepts::everything()));
}  // namespace normbench::kernels
