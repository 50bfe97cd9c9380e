// The part of a `normbench run` JSON report (schema_version 1) that `normbench compare` reads,
// loaded and validated. Only what compare needs is required: schema_version, device (null or
// an object with "name"), config.hash, and problems[].{id, kernels[].{id, status, timing}} with
// timing null or an object with samples_ms. Everything else (verification trials, bandwidth,
// resolved config, ...) may be missing.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace normbench {

struct ReportKernelEntry {
  std::string id;
  std::string status;                             // passed, failed, not_supported, error or skipped
  std::string reason;                             // empty when the report has null
  std::optional<std::vector<double>> samples_ms;  // nullopt: timing was null (not timed)
};

struct ReportProblemEntry {
  std::string id;
  std::vector<ReportKernelEntry> kernels;
};

// Where a report comes from; printed in compare's output.
struct ReportInfo {
  std::string source;       // the file path
  std::string device_name;  // empty when device is null
  std::string config_name;
  std::string config_hash;
  std::string created_at;    // empty when absent
  std::string git_revision;  // tool.git_revision; empty when absent
  std::string aborted;       // empty when the run was not aborted
};

struct ComparableReport {
  ReportInfo info;
  std::vector<ReportProblemEntry> problems;
};

// Validates a parsed report; throws ConfigError (a UsageError: exit 2) naming `source`, the
// JSON path and what is wrong, e.g. "x.json: /problems/0/kernels/2: missing required field
// \"status\"" or "x.json: /schema_version: this normbench reads schema_version 1, got 99".
ComparableReport parse_report(const nlohmann::json& document, const std::string& source);

// Reads, parses and validates a report file; throws UsageError naming the file when it cannot
// be read, is not JSON, or does not validate.
ComparableReport load_report(const std::string& path);

}  // namespace normbench
