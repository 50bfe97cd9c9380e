// `normbench report`: several JSON reports (schema_version 1: a normbench run, a PyTorch run of
// scripts/torch_baseline.py, ...) loaded and merged by problem id into one small model that
// the Markdown and HTML renderers draw. Speedups are recomputed here from the medians, so that
// kernels of different reports can be compared.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace normbench {

inline constexpr const char* kTorchEagerId = "torch.eager";
inline constexpr const char* kTorchCompileId = "torch.compile";

// One input report: what the renderers show about where the numbers came from.
struct ReportSource {
  std::string path;
  std::string label;        // the file name without extension, unique among the sources
  std::string tool;         // "normbench 0.1.0 (abc123)"
  std::string device_name;  // empty when the report has no device
  std::optional<double> copy_gb_per_s;
  std::string created_at;
  std::string config_name;
  std::string config_hash;
};

struct ReportTiming {
  double median_ms = 0.0;
  double mean_ms = 0.0;
  double stdev_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  double relative_stdev = 0.0;
  int64_t samples = 0;
  std::string stop_reason;
};

struct ReportKernel {
  std::string id;
  std::string description;
  size_t source = 0;  // index into ReportModel::sources
  bool is_baseline = false;
  std::string status;  // passed, failed, not_supported, error, skipped
  std::string reason;
  std::optional<bool> verified;  // verification.passed; empty when it was not verified
  std::optional<double> max_abs_error;
  std::optional<double> max_rel_error;
  std::optional<ReportTiming> timing;  // only when status is passed
  std::optional<double> gb_per_s;
  std::optional<double> percent_of_copy;
  bool suspicious = false;  // faster than a plain copy of the same bytes
  // Other kernel's median / this median; empty when either was not timed.
  std::optional<double> vs_baseline;
  std::optional<double> vs_torch_eager;
  std::optional<double> vs_torch_compile;
};

struct ReportProblem {
  std::string id;
  std::string op;
  std::string description;
  std::vector<int64_t> shape;
  std::optional<int64_t> min_bytes;
  std::string baseline_id;      // the is_baseline kernel, empty if no report has one
  std::vector<size_t> sources;  // the reports this problem appears in
  std::vector<ReportKernel> kernels;
};

struct ReportModel {
  std::vector<ReportSource> sources;
  std::vector<ReportProblem> problems;
  std::vector<std::string> warnings;  // mismatches let through by --allow-mismatch, duplicates
  bool has_torch_eager = false;       // some problem has a timed torch.eager
  bool has_torch_compile = false;
};

// One report file, read and checked.
struct LoadedReport {
  ReportSource source;
  std::vector<ReportProblem> problems;  // kernels' `source` is 0 until merged
  // Per problem: what makes two problems of one id the same problem (op, shape, inputs,
  // tolerance...; not the description, timing settings or trial count).
  std::vector<nlohmann::json> identities;
};

// Reads and checks a report; throws UsageError "<path>: <json path>: <what is wrong>" when the
// file cannot be read, is not JSON or does not follow schema_version 1.
LoadedReport read_report_file(const std::string& path);
// The same from text already read; `path` names it in messages.
LoadedReport read_report_text(const std::string& text, const std::string& path);

// Merges reports by problem id, kernels in order of first appearance. Throws UsageError when
// the reports come from different GPU models, or give one problem id different shapes or
// inputs, unless allow_mismatch (then each mismatch becomes a warning).
ReportModel merge_reports(const std::vector<LoadedReport>& reports, bool allow_mismatch);

// The kernel with this id in `problem`, or nullptr (the first one if several reports have it).
const ReportKernel* find_report_kernel(const ReportProblem& problem, const std::string& id);

}  // namespace normbench
