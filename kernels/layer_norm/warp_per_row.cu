// layer_norm.warp_per_row: rows of up to 1024 elements in registers, 4 to 32 lanes per row
// (families/rows_in_registers.cuh). Assumes row size % 4 == 0.
#include "kernels/families/rows_in_registers.cuh"

namespace normbench::kernels {
namespace {
cudaError_t launch(const ProblemShape& p, const DeviceCaps&, const KernelArgs& args) {
  return launch_rows_in_registers(p, args, row_params(args), IdentityEpilogue{});
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(
    make_variant(Op::layer_norm, "layer_norm.warp_per_row",
                 "rows <= 1024 held in registers by 4-32 lanes, shuffle reductions, one read of x",
                 launch, rows_in_registers_unsupported));
}  // namespace normbench::kernels
