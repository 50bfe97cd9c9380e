#include "app/results/run_result.hpp"

#include "app/util/errors.hpp"

namespace normbench {

const char* to_string(KernelStatus status) {
  switch (status) {
    case KernelStatus::passed:
      return "passed";
    case KernelStatus::failed:
      return "failed";
    case KernelStatus::not_supported:
      return "not_supported";
    case KernelStatus::error:
      return "error";
    case KernelStatus::skipped:
      return "skipped";
  }
  return "";
}

int exit_code_for(const RunReport& report) {
  if (!report.aborted.empty()) return kExitRuntime;
  for (const auto& problem : report.problems)
    for (const auto& kernel : problem.kernels)
      if (kernel.status == KernelStatus::failed || kernel.status == KernelStatus::error)
        return kExitFailed;
  return kExitOk;
}

}  // namespace normbench
