// `normbench report`: several run reports (a run, the shards of one, a run of other kernels on
// the same config), read by results/report_reader.hpp, merged by problem id into
// one small model that the Markdown and HTML renderers draw. Speedups are recomputed here from the
// medians, so that kernels of different reports can be compared.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/results/report_reader.hpp"

namespace normbench {

inline constexpr const char* kTorchEagerId = "torch.eager";
inline constexpr const char* kTorchCompileId = "torch.compile";

// One input report: what the renderers show about where the numbers came from.
struct ReportSource {
  ReportHeader header;
  std::string label;  // the file name without extension, unique among the sources
  std::string tool;   // "normbench 0.1.0 (abc123)"
};

// A kernel as read, plus the speedups derived across reports.
struct ReportKernel : LoadedKernel {
  size_t source = 0;  // index into ReportModel::sources
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
  bool l2_evicted = true;       // timing.flush_l2 of the first report that has it
  std::string baseline_id;      // the is_baseline kernel, empty if no report has one
  std::vector<size_t> sources;  // the reports this problem appears in
  std::vector<ReportKernel> kernels;
  std::string sweep_family;    // a point of a sweep: its family; else empty
  nlohmann::json sweep_point;  // and its axis values
  nlohmann::json identity;     // op, shape and format as the first report gave them
};

struct ReportModel {
  std::vector<ReportSource> sources;
  std::vector<ReportProblem> problems;
  std::vector<std::string> warnings;  // mismatches let through by --allow-mismatch, duplicates
  bool has_torch_eager = false;       // some problem has a timed torch.eager
  bool has_torch_compile = false;
};

// Merges reports by problem id, kernels in order of first appearance. Throws UsageError when
// the reports come from different GPU models, or give one problem id different shapes or
// inputs, unless allow_mismatch (then each mismatch becomes a warning).
ReportModel merge_reports(const std::vector<LoadedReport>& reports, bool allow_mismatch);

// The kernel with this id in `problem`, or nullptr (the first one if several reports have it).
const ReportKernel* find_report_kernel(const ReportProblem& problem, const std::string& id);

}  // namespace normbench
