// The run report's format in one place: its schema version and the statuses a kernel can end
// with. The writer (report_writer.hpp) and the one reader (report_reader.hpp) both use these;
// README "Report format" and results/report.schema.json document them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace normbench {

inline constexpr int kReportSchemaVersion = 1;

enum class KernelStatus {
  passed,         // every configured trial ran and matched the reference
  failed,         // a trial did not match the reference, or the kernel changed its inputs
  not_supported,  // the kernel declined the problem (with its reason)
  error,          // the launch was refused or the kernel failed on the device
  skipped,        // the problem did not fit in memory
};
inline constexpr KernelStatus kAllKernelStatuses[] = {KernelStatus::passed, KernelStatus::failed,
                                                      KernelStatus::not_supported,
                                                      KernelStatus::error, KernelStatus::skipped};

const char* to_string(KernelStatus status);
std::optional<KernelStatus> kernel_status_from_string(std::string_view text);
// "passed, failed, not_supported, error, skipped": for messages.
std::string allowed_kernel_statuses();

// A verdict against the kernel: the run (and compare) treat it as a failure.
inline bool is_failure(KernelStatus s) {
  return s == KernelStatus::failed || s == KernelStatus::error;
}
// The kernel produced no verdict for a reason of its own or of the problem.
inline bool is_absent(KernelStatus s) {
  return s == KernelStatus::not_supported || s == KernelStatus::skipped;
}

}  // namespace normbench
