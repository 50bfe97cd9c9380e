#include "app/compare/compare_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "app/util/file_safe_name.hpp"
#include "app/util/markdown_text.hpp"
#include "app/util/number_text.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

namespace {
using json = nlohmann::json;

constexpr size_t kColumns = 8;
using Row = std::array<std::string, kColumns>;
const Row kHeader = {"problem", "kernel",  "baseline ms", "candidate ms",
                     "change",  "p-value", "verdict",     "note"};

// Ids and notes come from the reports: bounded and with control characters escaped, so that a
// report cannot drive the terminal or flood the table (shown_text.hpp).
Row result_row(const KernelComparison& r) {
  Row row = {shown(r.problem),     shown(r.kernel), "-", "-", "-", "-",
             to_string(r.verdict), shown(r.note)};
  if (r.regression) row[6] += " (REGRESSION)";
  if (const auto& t = r.timing) {
    row[2] = fmt::format("{:.4g}", t->baseline_median_ms);
    row[3] = fmt::format("{:.4g}", t->candidate_median_ms);
    if (t->ratio) {
      const double percent = 100.0 * (*t->ratio - 1.0);
      const double shown_percent = std::abs(percent) < 0.05 ? 0.0 : percent;  // no "-0.0%"
      row[4] = (shown_percent >= 0.0 ? "+" : "") + fixed_digits(shown_percent, 1) + "%";
    }
    if (t->p_value) row[5] = fmt::format("{:.2g}", *t->p_value);
  }
  return row;
}

std::string report_line(const ReportHeader& r) {
  return fmt::format("{} ({}, config {} {}{}{})", shown(r.path),
                     r.device_name.empty() ? "no device" : shown(r.device_name),
                     shown(r.config_name), shown(r.config_hash),
                     r.created_at.empty() ? "" : ", " + shown(r.created_at),
                     r.git_revision.empty() ? "" : ", rev " + shown(r.git_revision));
}

std::string rule_line(const CompareSettings& s) {
  return fmt::format(
      "slower above a median ratio of {:.3f}, faster below {:.3f}, when the two-sided "
      "Mann-Whitney U test gives p < {:g}; at least {} samples each",
      1.0 + s.max_slowdown, 1.0 / (1.0 + s.max_slowdown), s.alpha, s.min_samples);
}

// "14 kernels: 1 slower, 12 same, 1 unchanged_status"
std::string counts_line(const Comparison& c) {
  std::string out = fmt::format("{} kernels:", c.results.size());
  bool first = true;
  for (Verdict v : kAllVerdicts) {
    const auto n = std::count_if(c.results.begin(), c.results.end(),
                                 [v](const KernelComparison& r) { return r.verdict == v; });
    if (n == 0) continue;
    out += fmt::format("{} {} {}", first ? "" : ",", n, to_string(v));
    first = false;
  }
  return out;
}

std::string result_word(const Comparison& c) {
  return c.regressions > 0          ? "regression"
         : c.untested_slowdowns > 0 ? "untested"
         : c.inconclusive > 0       ? "inconclusive"
                                    : "ok";
}

std::string headline(const Comparison& c) {
  if (c.regressions > 0)
    return fmt::format("REGRESSION: {} regression{}", c.regressions, c.regressions == 1 ? "" : "s");
  if (c.untested_slowdowns > 0)
    return fmt::format(
        "UNTESTED: {} kernel{} slower by the medians, with samples that cannot show it (too few, "
        "or taken while the GPU throttled) (failing)",
        c.untested_slowdowns, c.untested_slowdowns == 1 ? "" : "s");
  if (c.inconclusive > 0)
    return fmt::format("no regression; {} inconclusive{}", c.inconclusive,
                       c.settings.strict ? " (--strict: failing)" : "");
  return "no regression";
}

// An id as code where it is a plain name (every id normbench writes); anything else, say from a
// hand-made report, as escaped text: a backtick in it would end the code span.
std::string markdown_id(const std::string& id) {
  return is_file_safe_name(id) ? "`" + id + "`" : markdown_text(shown(id));
}

std::string markdown_table(const std::vector<const KernelComparison*>& rows) {
  std::string out = "|";
  for (const auto& h : kHeader) out += " " + h + " |";
  out += "\n|---|---|--:|--:|--:|--:|---|---|\n";
  for (const KernelComparison* r : rows) {
    Row row = result_row(*r);
    for (std::string& cell : row) cell = markdown_text(cell);
    row[0] = markdown_id(r->problem);
    row[1] = markdown_id(r->kernel);
    if (r->regression) row[6] = "**" + row[6] + "**";
    out += "|";
    for (const auto& cell : row) out += " " + (cell.empty() ? " " : cell) + " |";
    out += "\n";
  }
  return out;
}

json or_null(const std::string& s) {
  return s.empty() ? json(nullptr) : json(s);
}

json status_or_null(const std::optional<KernelStatus>& s) {
  return s ? json(to_string(*s)) : json(nullptr);
}

json info_json(const ReportHeader& r) {
  return {{"path", r.path},
          {"device_name", or_null(r.device_name)},
          {"config_name", r.config_name},
          {"config_hash", r.config_hash},
          {"created_at", or_null(r.created_at)},
          {"git_revision", or_null(r.git_revision)},
          {"aborted", or_null(r.aborted)}};
}

json result_json(const KernelComparison& r) {
  json j = {{"problem", r.problem},
            {"kernel", r.kernel},
            {"verdict", to_string(r.verdict)},
            {"regression", r.regression},
            {"baseline_status", status_or_null(r.baseline_status)},
            {"candidate_status", status_or_null(r.candidate_status)},
            {"baseline_median_ms", nullptr},
            {"candidate_median_ms", nullptr},
            {"ratio", nullptr},
            {"change_percent", nullptr},
            {"p_value", nullptr},
            {"baseline_samples", nullptr},
            {"candidate_samples", nullptr},
            {"note", or_null(r.note)},
            {"untested_slowdown", r.untested_slowdown},
            {"accuracy_worsened", r.accuracy_worsened}};
  if (const auto& t = r.timing) {
    j["baseline_median_ms"] = t->baseline_median_ms;
    j["candidate_median_ms"] = t->candidate_median_ms;
    if (t->ratio) {
      j["ratio"] = *t->ratio;
      j["change_percent"] = 100.0 * (*t->ratio - 1.0);
    }
    if (t->p_value) j["p_value"] = *t->p_value;
    j["baseline_samples"] = t->baseline_samples;
    j["candidate_samples"] = t->candidate_samples;
  }
  return j;
}
}  // namespace

std::string format_compare_table(const Comparison& c) {
  std::string out = "baseline:  " + report_line(c.baseline) + "\n";
  out += "candidate: " + report_line(c.candidate) + "\n";
  out += "rule:      " + rule_line(c.settings) + "\n";
  for (const auto& w : c.warnings) out += "WARNING:   " + terminal_safe(w) + "\n";
  std::vector<Row> rows = {kHeader};
  for (const auto& r : c.results) rows.push_back(result_row(r));
  std::array<size_t, kColumns> width{};
  for (const auto& row : rows)
    for (size_t i = 0; i < kColumns; ++i) width[i] = std::max(width[i], row[i].size());
  out += "\n";
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < kColumns; ++i) {
      const bool numeric = i >= 2 && i <= 5;
      const size_t w = i + 1 == kColumns ? 0 : width[i];  // no padding after the last column
      line += numeric ? fmt::format("{:>{}}  ", row[i], w) : fmt::format("{:<{}}  ", row[i], w);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  for (const auto& p : c.missing_problems)
    out += "\nproblem missing from the candidate: " + shown(p);
  for (const auto& p : c.new_problems) out += "\nproblem new in the candidate: " + shown(p);
  out += "\n" + counts_line(c) + "\n";
  out += "result: " + headline(c) + "\n";
  return out;
}

std::string format_compare_markdown(const Comparison& c) {
  std::string out = "### normbench compare: " + headline(c) + "\n\n";
  out += "- baseline: " + markdown_text(report_line(c.baseline)) + "\n";
  out += "- candidate: " + markdown_text(report_line(c.candidate)) + "\n";
  out += "- rule: " + rule_line(c.settings) + "\n";
  out += "- " + counts_line(c) + "\n";
  for (const auto& w : c.warnings)
    out += "\n> **Warning:** " + markdown_text(terminal_safe(w)) + "\n";
  for (const auto& p : c.missing_problems)
    out += "\nProblem " + markdown_id(p) + " is missing from the candidate.\n";
  for (const auto& p : c.new_problems)
    out += "\nProblem " + markdown_id(p) + " is new in the candidate.\n";

  std::vector<const KernelComparison*> notable, all;
  for (const auto& r : c.results) {
    all.push_back(&r);
    if ((r.verdict != Verdict::same && r.verdict != Verdict::unchanged_status) ||
        r.accuracy_worsened)
      notable.push_back(&r);
  }
  if (!notable.empty()) out += "\n#### Changes\n\n" + markdown_table(notable);
  out += fmt::format("\n<details><summary>All {} kernels</summary>\n\n", all.size());
  out += markdown_table(all) + "\n</details>\n";
  return out;
}

json compare_to_json(const Comparison& c) {
  const CompareSettings& s = c.settings;
  json results = json::array();
  for (const auto& r : c.results) results.push_back(result_json(r));
  json counts = json::object();
  for (Verdict v : kAllVerdicts)
    counts[to_string(v)] = std::count_if(c.results.begin(), c.results.end(),
                                         [v](const KernelComparison& r) { return r.verdict == v; });
  return {{"schema_version", 1},
          {"kind", "normbench-compare"},
          {"baseline", info_json(c.baseline)},
          {"candidate", info_json(c.candidate)},
          {"settings",
           {{"max_slowdown", s.max_slowdown},
            {"slower_above", 1.0 + s.max_slowdown},
            {"faster_below", 1.0 / (1.0 + s.max_slowdown)},
            {"alpha", s.alpha},
            {"min_samples", s.min_samples},
            {"allow_missing", s.allow_missing},
            {"allow_mismatch", s.allow_mismatch},
            {"strict", s.strict}}},
          {"warnings", c.warnings},
          {"missing_problems", c.missing_problems},
          {"new_problems", c.new_problems},
          {"results", results},
          {"summary",
           {{"kernels", c.results.size()},
            {"regressions", c.regressions},
            {"inconclusive", c.inconclusive},
            {"untested_slowdowns", c.untested_slowdowns},
            {"counts", counts},
            {"result", result_word(c)}}},
          {"exit_code", c.exit_code}};
}

}  // namespace normbench
