#include "app/results/run_result.hpp"

#include "app/util/errors.hpp"

namespace normbench {

void mark_unfinished(RunReport& report, std::vector<ProblemResult> never_reached) {
  for (auto& problem : never_reached) report.problems.push_back(std::move(problem));
  const std::string why = "not run: the run stopped early (" + report.aborted + ")";
  for (auto& problem : report.problems)
    for (auto& k : problem.kernels) {
      // Verified, but the run stopped before its timing: not a pass of a timed run (a reader
      // refuses a passed kernel without a time there), and `compare` calls it a regression.
      if (k.status == KernelStatus::passed && !k.timing && report.settings.timing)
        k.status = KernelStatus::not_run;
      if (k.status == KernelStatus::not_run) {
        k.reason = why;
        k.timing.reset();
      }
    }
}

int exit_code_for(const RunReport& report) {
  if (!report.aborted.empty()) return kExitRuntime;
  for (const auto& problem : report.problems)
    if (!problem.tensors_error.empty()) return kExitRuntime;
  for (const auto& problem : report.problems)
    for (const auto& kernel : problem.kernels)
      if (is_failure(kernel.status)) return kExitFailed;
  return kExitOk;
}

}  // namespace normbench
