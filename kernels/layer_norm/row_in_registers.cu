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
constexpr int kHints16 = kWideRowsOneReduction | kWideRowsPrefetchTail;
// Where the rows start at once (up to two blocks an SM, where the plan also loads the
// parameters early) there is no tail to prefetch (the launch passes a distance of 0), yet the
// prefetch's code alone cost up to 0.2 us: on the H100, decode.json's LayerNorms of 1-8 rows
// took 0.05-0.25 us less without it, those of 32-128 rows the same within 0.1 (kernels/NOTES.md).
constexpr int kHints16AtOnce = kWideRowsOneReduction;

KernelPlan plan(const ProblemShape& p, const DeviceCaps& device) {
  if (dtype_bytes(p.dtype) == 2 && wide_rows_start_at_once(p, device, 2))
    return plan_wide_rows_variant<Norm::centered, kHints16AtOnce>(p, device, IdentityEpilogue{});
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
