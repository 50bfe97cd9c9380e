// Output of `normbench compare`: a plain-text table (default), Markdown for a pull-request
// comment, or JSON for machines.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "app/compare/compare.hpp"

namespace normbench {

std::string format_compare_table(const Comparison& comparison);
std::string format_compare_markdown(const Comparison& comparison);

// The JSON document (compare schema_version 1):
//   schema_version   1
//   kind             "normbench-compare"
//   baseline, candidate  {path, device_name (null if none), config_name, config_hash,
//                         created_at, git_revision, aborted (null unless the run aborted)}
//   settings         {max_slowdown, slower_above (ratio 1 + max_slowdown), faster_below
//                     (ratio 1 / (1 + max_slowdown)), alpha, min_samples, allow_missing,
//                     allow_mismatch, strict}
//   warnings         [string]: mismatches compared anyway, aborted runs
//   missing_problems, new_problems  [problem id]
//   results          [{problem, kernel, verdict, regression (bool), baseline_status,
//                      candidate_status (null when absent from that report), baseline_median_ms,
//                      candidate_median_ms, ratio (candidate / baseline median),
//                      change_percent (100 (ratio - 1)), p_value (two-sided Mann-Whitney),
//                      baseline_samples, candidate_samples (all timing fields null when not
//                      compared on timing; ratio and p_value null when not computable),
//                      note (null or why)}]
//                    verdict: faster, slower, same, inconclusive, not_timed, failed_now, fixed,
//                    still_failing, no_longer_runs, status_changed, unchanged_status, missing,
//                    new
//   summary          {kernels, regressions, inconclusive, counts: {verdict: number, every
//                     verdict listed}, result: "regression" | "inconclusive" | "ok"}
//   exit_code        0, 1 or 4 (as the process exits)
nlohmann::json compare_to_json(const Comparison& comparison);

}  // namespace normbench
