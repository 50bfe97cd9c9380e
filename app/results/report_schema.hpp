// The run report's format in one place: its schema version and the statuses a kernel can end
// with. The writer (report_writer.hpp) and the one reader (report_reader.hpp) both use these;
// README "Report format" and results/report.schema.json document them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace normbench {

// 2: the `not_run` status; `passed` means every configured trial ran and passed; kernels
// carry `deterministic` and timing its median interval and checks. Readers take 1 and 2.
inline constexpr int kReportSchemaVersion = 2;
inline constexpr int kOldestReadableSchemaVersion = 1;

// The most shards a run may be split into (`run --shard K/N`); readers refuse a larger count, so
// that `merge` never counts out millions of missing shards.
inline constexpr int kMaxShards = 10000;

enum class KernelStatus {
  passed,         // every configured trial ran and matched the reference
  failed,         // a check failed: output, inputs, guards, timed outputs, escaped work, floor
  not_supported,  // the kernel declined the problem (with its reason)
  error,          // the launch was refused, or the kernel crashed, faulted or hung
  skipped,        // the problem did not fit in memory
  not_run,        // the run ended before the kernel's trials did (the reason says why)
};
inline constexpr KernelStatus kAllKernelStatuses[] = {
    KernelStatus::passed, KernelStatus::failed,  KernelStatus::not_supported,
    KernelStatus::error,  KernelStatus::skipped, KernelStatus::not_run};

const char* to_string(KernelStatus status);
std::optional<KernelStatus> kernel_status_from_string(std::string_view text);
// "passed, failed, not_supported, error, skipped, not_run": for messages.
std::string allowed_kernel_statuses();

// A verdict against the kernel: the run (and compare) treat it as a failure.
inline bool is_failure(KernelStatus s) {
  return s == KernelStatus::failed || s == KernelStatus::error;
}
// The kernel produced no verdict for a reason of its own or of the problem.
inline bool is_absent(KernelStatus s) {
  return s == KernelStatus::not_supported || s == KernelStatus::skipped ||
         s == KernelStatus::not_run;
}

}  // namespace normbench
