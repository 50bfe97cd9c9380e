#include "app/results/report_schema.hpp"

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
    case KernelStatus::not_run:
      return "not_run";
  }
  return "";
}

std::optional<KernelStatus> kernel_status_from_string(std::string_view text) {
  for (KernelStatus s : kAllKernelStatuses)
    if (text == to_string(s)) return s;
  return std::nullopt;
}

std::string allowed_kernel_statuses() {
  std::string out;
  for (KernelStatus s : kAllKernelStatuses)
    out += (out.empty() ? "" : ", ") + std::string(to_string(s));
  return out;
}

}  // namespace normbench
