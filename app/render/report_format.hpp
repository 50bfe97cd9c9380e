// The tables of `normbench report`, as plain-text cells: one definition that the Markdown and
// the HTML renderers both draw, so that both show the same numbers the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/render/report_model.hpp"

namespace normbench {

struct ReportCell {
  enum class Style { plain, good, bad, warn, muted, slower };  // bad, warn: emphasised
  std::string text;
  Style style = Style::plain;
  std::string title;  // longer explanation (an HTML tooltip); may be empty
};

// A cell; its text rendered as given. The "—" cell (muted) stands where there is no value.
ReportCell report_cell(std::string text, ReportCell::Style style = ReportCell::Style::plain,
                       std::string title = "");
ReportCell no_value_cell();
// A ratio of medians: good above 1.005, slower below 0.995, "—" where there is none.
ReportCell speedup_cell(const std::optional<double>& ratio);

struct ReportTable {
  std::vector<std::string> headers;
  std::vector<bool> numeric;  // per column: right-aligned
  std::vector<std::vector<ReportCell>> rows;
  std::vector<std::string> notes;  // why kernels failed or were not run, one line each
};

// The problem's kernels: verification, error, time, spread, bandwidth, % of floor, speedups.
ReportTable problem_table(const ReportModel& model, const ReportProblem& problem);
// One row per input report: file, tool, GPU, copy bandwidth, latency floor (where a report
// has one), time, config.
ReportTable sources_table(const ReportModel& model);

// "layer_norm [16, 64, 256, 256], at least 570.4 MB moved; floor 188.0 µs (copy)"
std::string problem_summary(const ReportProblem& problem);
// The floor the problem's kernels are measured against: its default kernel's, else the first
// kernel's that has one (kernels of several reports may have run on GPUs of other floors).
std::optional<ProblemFloor> problem_floor_of(const ReportProblem& problem);
// "188.0 µs (copy)", "2.900 µs (latency, L2 evicted)"
std::string floor_text(const ProblemFloor& floor, bool l2_evicted);
// "vs naive" for a baseline "<op>.naive", else "vs <baseline id>".
std::string baseline_header(const ReportProblem& problem);

std::string format_time(double ms);        // "8.516 ms", "180.0 µs"
std::string format_speedup(double ratio);  // "18.4×", "1.00×", "0.084×"
std::string format_gb_per_s(double gb_per_s);
std::string format_percent(double percent);
std::string format_bytes(int64_t bytes);  // "570.4 MB", "7.52 GB"

// What the activity trace saw one launch run. In a cell: "rms_norm_rows<bf16, 8>", or
// "3 operations: 2 kernels, 1 memset". In full: each operation with its device time and share,
// the stream where it was not the given one, and the device time of the timed samples'
// operations next to the event-timed median: "1 kernel: rms_norm_rows<bf16, 8> 174.2 µs
// (100%); device time 174.2 µs of the 174.6 µs event-timed median".
std::string activity_cell_text(const std::vector<OperationSummary>& operations);
std::string activity_detail(const std::vector<OperationSummary>& operations,
                            std::optional<double> device_median_ms,
                            std::optional<double> event_median_ms);

}  // namespace normbench
