#include "app/render/report_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <tuple>
#include <vector>

#include "app/util/shown_text.hpp"

namespace normbench {

namespace {

const char* const kColumns[] = {"report",
                                "problem",
                                "op",
                                "kernel",
                                "is_baseline",
                                "device",
                                "status",
                                "reason",
                                "max_abs_error",
                                "median_ms",
                                "ci95_low_ms",
                                "ci95_high_ms",
                                "spread_percent",
                                "samples",
                                "gb_per_s",
                                "percent_of_copy",
                                "floor_ms",
                                "floor_bound",
                                "percent_of_floor",
                                "suspicious",
                                "baseline",
                                "speedup_vs_baseline",
                                "speedup_vs_torch_eager",
                                "speedup_vs_torch_compile"};

std::string number(const std::optional<double>& value) {
  return value ? fmt::format("{}", *value) : std::string();
}

// As the tables show it: the half-width of the median's 95% interval over the median (schema 1
// reports have no interval: their relative standard deviation).
std::optional<double> spread_percent(const LoadedTiming& t) {
  if (!t.median_ci_ms) return 100.0 * t.relative_stdev;
  if (t.median_ms <= 0.0) return std::nullopt;
  const auto [low, high] = *t.median_ci_ms;
  return 100.0 * std::max(t.median_ms - low, high - t.median_ms) / t.median_ms;
}

std::string row(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + csv_field(fields[i]);
  return line + "\r\n";
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_text(const std::string& raw) {
  // Line breaks stay (a quoted field may hold them); other control characters as \u001b.
  std::string text;
  for (size_t begin = 0;;) {
    const size_t end = raw.find('\n', begin);
    text += terminal_safe(std::string_view(raw).substr(begin, end - begin));
    if (end == std::string::npos) break;
    text += '\n';
    begin = end + 1;
  }
  if (!text.empty() && std::string("=+-@").find(text.front()) != std::string::npos)
    return "'" + text;
  return text;
}

std::string render_csv(const ReportModel& model) {
  std::string out = row(std::vector<std::string>(std::begin(kColumns), std::end(kColumns)));
  for (const ReportProblem& p : model.problems)
    for (const ReportKernel& k : p.kernels) {
      const LoadedTiming* t = k.timing ? &*k.timing : nullptr;
      std::optional<double> low, high;
      if (t && t->median_ci_ms) std::tie(low, high) = *t->median_ci_ms;
      out += row({csv_text(model.sources[k.source].label),
                  csv_text(p.id),
                  csv_text(p.op),
                  csv_text(k.id),
                  k.is_baseline ? "true" : "false",
                  k.device ? std::to_string(*k.device) : "",
                  to_string(k.status),
                  csv_text(k.reason),
                  number(k.max_abs_error),
                  t ? number(t->median_ms) : "",
                  number(low),
                  number(high),
                  t ? number(spread_percent(*t)) : "",
                  t ? std::to_string(t->samples_ms.size()) : "",
                  number(k.gb_per_s),
                  number(k.percent_of_copy),
                  k.floor ? number(k.floor->ms) : "",
                  k.floor ? to_string(k.floor->bound) : "",
                  number(k.percent_of_floor),
                  k.timing ? (k.suspicious ? "true" : "false") : "",
                  csv_text(p.baseline_id),
                  number(k.vs_baseline),
                  number(k.vs_torch_eager),
                  number(k.vs_torch_compile)});
    }
  return out;
}

}  // namespace normbench
