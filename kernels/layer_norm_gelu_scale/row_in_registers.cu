// layer_norm_gelu_scale.row_in_registers: LLM rows held in registers by one block per row, x
// read once (families/wide_rows.cuh), the polynomial GELU * scale fused. Assumes row size %
// (16 bytes / element size) == 0 and at most 4096 16-byte vectors per row.
#include "kernels/families/wide_rows.cuh"

namespace normbench::kernels {
namespace {
KernelPlan plan(const ProblemShape& p, const DeviceCaps&) {
  return plan_wide_rows_variant<Norm::centered>(p, gelu_scale_poly(p));
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(planned_variant(Op::layer_norm_gelu_scale,
                                          "layer_norm_gelu_scale.row_in_registers",
                                          "rows of 16-byte vectors up to 32K 16-bit / 16K float32 "
                                          "held in registers by a block, GELU * scale",
                                          plan, Accepts::everything()));
}  // namespace normbench::kernels
