// add_rms_norm.row_in_registers: LLM rows held in registers by one block per row
// (families/wide_rows.cuh): x and residual read once, s = x + residual rounded and stored, the
// rounded s kept in registers for the statistics and y. Assumes row size % (16 bytes / element
// size) == 0 and at most 4096 16-byte vectors per row.
#include "kernels/families/wide_rows.cuh"

namespace normbench::kernels {
namespace {
constexpr int kHints = kWideRowsEvictLastLoads | kWideRowsStreamStores | kWideRowsEarlyParams;

KernelPlan plan(const ProblemShape& p, const DeviceCaps& device) {
  if (p.num_segments <= kWideRowsParamsFirstMaxRows)
    return plan_wide_rows_variant<Norm::add_rms, kHints | kWideRowsParamsFirst>(p, device,
                                                                                IdentityEpilogue{});
  return plan_wide_rows_variant<Norm::add_rms, kHints>(p, device, IdentityEpilogue{});
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(planned_variant(Op::add_rms_norm, "add_rms_norm.row_in_registers",
                                          "rows up to 32K 16-bit / 16K float32 in registers by a "
                                          "block: s = x + residual stored, y from it",
                                          plan, Accepts::everything()));
}  // namespace normbench::kernels
