#include "kernels/families/wide_rows_backward_plan.hpp"

#include <algorithm>

namespace normbench::kernels {

WideRowsBackwardPlan plan_wide_rows_backward(const ProblemShape& p, int sm_count) {
  WideRowsBackwardPlan plan;
  const std::string type(dtype_name(p.dtype));
  plan.vector_elements = static_cast<int>(16 / dtype_bytes(p.dtype));
  if (p.grouped()) {
    plan.unsupported = "rows only (GroupNorm's parameters are per channel)";
    return plan;
  }
  if (p.segment_size % plan.vector_elements != 0) {
    plan.unsupported = "row of " + std::to_string(p.segment_size) +
                       " elements is not a multiple of the " +
                       std::to_string(plan.vector_elements) + " " + type + " of a 16-byte vector";
    return plan;
  }
  if (p.segment_size > kWideRowsBackwardMaxRow) {
    plan.unsupported = "row of " + std::to_string(p.segment_size) +
                       " elements does not fit in registers: at most " +
                       std::to_string(kWideRowsBackwardMaxRow) + " (" +
                       std::to_string(kWideRowsBackwardMaxThreads) + " threads x " +
                       std::to_string(kWideRowsBackwardColumns) + " columns of x and dy)";
    return plan;
  }
  plan.row_vectors = static_cast<int>(p.segment_size / plan.vector_elements);
  plan.vectors_per_thread = kWideRowsBackwardColumns / plan.vector_elements;
  plan.threads =
      static_cast<int>(ceil_div(ceil_div(plan.row_vectors, plan.vectors_per_thread), 32) * 32);
  const int64_t most = int64_t{kWideRowsBackwardBlocksPerSm} * std::max(sm_count, 1);
  plan.max_blocks = static_cast<int>(std::max<int64_t>(std::min(p.num_segments, most), 1));
  const int64_t partial_sums = p.affine ? (p.has_bias ? 2 : 1) : 0;
  plan.workspace_bytes =
      static_cast<size_t>(partial_sums * plan.max_blocks * p.param_size) * sizeof(float);
  return plan;
}

}  // namespace normbench::kernels
