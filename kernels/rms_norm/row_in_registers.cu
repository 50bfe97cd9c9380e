// rms_norm.row_in_registers: LLM rows (1K-32K elements, bf16/fp16/fp32) held in registers by one
// block per row, x read once, one reduction (families/wide_rows.cuh). Assumes row size % (16
// bytes / element size) == 0 and at most 4096 16-byte vectors per row.
#include "kernels/families/wide_rows.cuh"

namespace normbench::kernels {
namespace {
KernelPlan plan(const ProblemShape& p, const DeviceCaps& device) {
  return plan_wide_rows_variant<Norm::rms, kWideRowsEvictLastLoads | kWideRowsStreamStores>(
      p, device, IdentityEpilogue{});
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(planned_variant(Op::rms_norm, "rms_norm.row_in_registers",
                                          "rows of 16-byte vectors up to 32K 16-bit / 16K float32 "
                                          "held in registers by a block, one read of x",
                                          plan, Accepts::everything()));
}  // namespace normbench::kernels
