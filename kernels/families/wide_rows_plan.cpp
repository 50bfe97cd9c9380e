#include "kernels/families/wide_rows_plan.hpp"

#include <limits>

namespace normbench::kernels {

WideRowsPlan plan_wide_rows(const ProblemShape& p, bool rows_resident) {
  WideRowsPlan plan;
  const std::string type(dtype_name(p.dtype));
  plan.vector_elements = static_cast<int>(16 / dtype_bytes(p.dtype));
  if (p.segment_size % plan.vector_elements != 0) {
    plan.unsupported = "row of " + std::to_string(p.segment_size) +
                       " elements is not a multiple of the " +
                       std::to_string(plan.vector_elements) + " " + type + " of a 16-byte vector";
    return plan;
  }
  const int64_t vectors = p.segment_size / plan.vector_elements;
  if (vectors > kWideRowsMaxVectors) {
    plan.unsupported = "row of " + std::to_string(p.segment_size) +
                       " elements does not fit in registers: at most " +
                       std::to_string(kWideRowsMaxVectors * plan.vector_elements) + " " + type +
                       " (" + std::to_string(kWideRowsMaxThreads) + " threads x " +
                       std::to_string(kWideRowsManyVectors) + " 16-byte vectors)";
    return plan;
  }
  if (p.num_segments > std::numeric_limits<int>::max()) {
    plan.unsupported = "more than 2^31-1 rows (one block each)";
    return plan;
  }
  plan.row_vectors = static_cast<int>(vectors);
  const int64_t few_threads = ceil_div(vectors, kWideRowsFewVectors);
  plan.vectors_per_thread =
      few_threads <= kWideRowsMaxThreads / 2 ? kWideRowsFewVectors : kWideRowsManyVectors;
  if (rows_resident && ceil_div(vectors, kWideRowsLatencyVectors) <= kWideRowsMaxThreads)
    plan.vectors_per_thread = kWideRowsLatencyVectors;
  plan.threads = static_cast<int>(ceil_div(ceil_div(vectors, plan.vectors_per_thread), 32) * 32);
  return plan;
}

WideRowsForm pick_latency_form(int64_t blocks_needed, int exact_fit_per_sm, int guarded_per_sm) {
  if (exact_fit_per_sm > 0 && exact_fit_per_sm >= blocks_needed) return WideRowsForm::exact_fit;
  if (guarded_per_sm >= blocks_needed) return WideRowsForm::guarded;
  return WideRowsForm::four_blocks;
}

}  // namespace normbench::kernels
