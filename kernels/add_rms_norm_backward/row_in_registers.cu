// add_rms_norm_backward.row_in_registers: rms_norm_backward.row_in_registers with ds_out read
// once per element and added to dx before its one rounding (families/wide_rows_backward.cuh):
// LLM rows up to 8192 elements, bf16/fp16/fp32, weight in the data's type or float32, with or
// without weight; s (in x) and dy read once; dweight as per-block partials summed in a fixed
// order, no atomics. Uses the saved rstd. Assumes row size % (16 bytes / element size) == 0;
// declines other rows and longer ones (the naive kernel takes them).
#include "kernels/families/wide_rows_backward.cuh"

namespace normbench::kernels {
namespace {
KernelPlan plan(const ProblemShape& p, const DeviceCaps& device) {
  return plan_wide_rows_backward_variant</*kCentered=*/false, /*kAddsDsOut=*/true>(p, device);
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(planned_variant(
    Op::add_rms_norm_backward, "add_rms_norm_backward.row_in_registers",
    "rows of 16-byte vectors up to 8192 elements: s and dy held in registers by a block, one "
    "read, ds_out read once and added to dx; dweight as per-block partials summed in a fixed "
    "order",
    plan, Accepts::everything()));
}  // namespace normbench::kernels
