// The summary that opens every report: one row per problem with its floor, the op's default
// kernel (and what it dispatched to) and the fastest kernel that passed, their medians with
// intervals, the default's % of the floor and its speedups over the naive kernel, PyTorch eager
// and torch.compile where the reports have them; the kernels that failed or ended in error
// beneath. Markdown, HTML and the run report's JSON (`summary.problems`) all draw it from here.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/render/report_format.hpp"
#include "app/render/report_model.hpp"

namespace normbench {

struct SummaryRow {
  const ReportProblem* problem = nullptr;
  // The problem's floor (app/timing/problem_floor.hpp) on the GPU its default kernel ran on,
  // else its fastest's, else any of its kernels'; empty where the reports know neither floor.
  std::optional<ProblemFloor> floor;
  const ReportKernel* default_kernel = nullptr;  // "<op>.default", timed or not; may be null
  const ReportKernel* fastest = nullptr;         // the fastest kernel that passed and was timed
};

std::vector<SummaryRow> summary_rows(const ReportModel& model);
// The rows as table cells; the notes name every kernel that failed or ended in error.
ReportTable summary_table(const ReportModel& model);
// The rows for machines: [{problem, floor_ms, floor_bound: copy|latency|null, default: {id,
// dispatches_to, median_ms, median_ci_ms, percent_of_floor, vs_baseline, vs_torch_eager,
// vs_torch_compile} | null, fastest: {id, median_ms, median_ci_ms} | null, failures: [{kernel,
// status, reason}]}].
nlohmann::json summary_json(const ReportModel& model);

// `report` (a run's or a merge's JSON, at `path`) with its rows added as summary.problems,
// drawn from the report as any reader reads it. A summary that cannot be drawn must not cost
// the report: it is then written without one, and `warning` says why.
nlohmann::json with_problem_summary(nlohmann::json report, const std::string& path,
                                    std::string& warning);

}  // namespace normbench
