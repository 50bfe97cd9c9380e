#include "app/results/run_result.hpp"

#include "app/util/errors.hpp"

namespace normbench {

int exit_code_for(const RunReport& report) {
  if (!report.aborted.empty()) return kExitRuntime;
  for (const auto& problem : report.problems)
    for (const auto& kernel : problem.kernels)
      if (is_failure(kernel.status)) return kExitFailed;
  return kExitOk;
}

}  // namespace normbench
