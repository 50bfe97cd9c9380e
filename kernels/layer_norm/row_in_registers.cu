// layer_norm.row_in_registers: LLM rows (1K-32K elements, bf16/fp16/fp32, with or without
// bias) held in registers by one block per row, x read once (families/wide_rows.cuh). Assumes
// row size % (16 bytes / element size) == 0 and at most 4096 16-byte vectors per row.
#include "kernels/families/wide_rows.cuh"

namespace normbench::kernels {
namespace {
// 16-bit rows: one guarded reduction and the tail prefetch, 3% faster on bfloat16 4096 x 8192
// (45.3 -> 44.0 us) and no slower on the other llm.json LayerNorms (kernels/NOTES.md, "Stop
// 17"). Float32 rows keep the exact two-pass form (the one reduction does not apply to them) and
// no hints (the prefetch was not measured on them).
// (plan_wide_rows_variant drops the prefetch where the rows start at once.)
constexpr int kHints16 = kWideRowsOneReduction | kWideRowsPrefetchTail;

KernelPlan plan(const ProblemShape& p, const DeviceCaps& device) {
  if (dtype_bytes(p.dtype) == 2)
    return plan_wide_rows_variant<Norm::centered, kHints16>(p, device, IdentityEpilogue{});
  return plan_wide_rows_variant<Norm::centered, /*kHints=*/0>(p, device, IdentityEpilogue{});
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(planned_variant(Op::layer_norm, "layer_norm.row_in_registers",
                                          "rows of 16-byte vectors up to 32K 16-bit / 16K float32 "
                                          "held in registers by a block, one read of x",
                                          plan, Accepts::everything()));
}  // namespace normbench::kernels
