#include "app/render/report_summary.hpp"

#include <fmt/format.h>

#include "app/util/number_text.hpp"

namespace normbench {

namespace {
using Style = ReportCell::Style;
using json = nlohmann::json;

const char* kDash = "\u2014";

std::string default_id(const ReportProblem& p) {
  return p.op + ".default";
}

std::optional<double> percent_of_floor(const SummaryRow& r) {
  if (!r.floor || !r.default_kernel || !r.default_kernel->timing) return std::nullopt;
  return percent_of_floor(*r.floor, r.default_kernel->timing->median_ms);
}

// "188.0 µs"; a floor set by latency rather than bytes says so: "2.900 µs (latency)".
ReportCell floor_cell(const SummaryRow& r) {
  if (!r.floor) return no_value_cell();
  const std::string time = format_time(r.floor->ms);
  return {r.floor->bound == FloorBound::latency ? time + " (latency)" : time, Style::plain,
          floor_text(*r.floor, r.problem->l2_evicted)};
}

// "174.5 µs ±0.4%"
std::string median_text(const LoadedTiming& t) {
  std::string out = format_time(t.median_ms);
  if (t.median_ci_ms && t.median_ms > 0.0) {
    const auto [low, high] = *t.median_ci_ms;
    out += " \u00b1" +
           fixed_digits(100.0 * std::max(t.median_ms - low, high - t.median_ms) / t.median_ms, 1) +
           "%";
  }
  return out;
}

ReportCell kernel_cell(const ReportKernel* k) {
  if (!k) return no_value_cell();
  if (!k->timing)
    return report_cell(k->status == KernelStatus::passed ? "not timed" : to_string(k->status),
                       is_failure(k->status) ? Style::bad : Style::muted, k->reason);
  return report_cell(median_text(*k->timing));
}

json timing_json(const LoadedTiming& t) {
  json ci = nullptr;
  if (t.median_ci_ms) ci = {t.median_ci_ms->first, t.median_ci_ms->second};
  return {{"median_ms", t.median_ms}, {"median_ci_ms", ci}};
}

json optional_number(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}
}  // namespace

std::vector<SummaryRow> summary_rows(const ReportModel& model) {
  std::vector<SummaryRow> rows;
  for (const ReportProblem& p : model.problems) {
    SummaryRow r;
    r.problem = &p;
    r.default_kernel = find_report_kernel(p, default_id(p));
    for (const ReportKernel& k : p.kernels)
      if (k.status == KernelStatus::passed && k.timing &&
          (!r.fastest || k.timing->median_ms < r.fastest->timing->median_ms))
        r.fastest = &k;
    const ReportKernel* measured = r.default_kernel ? r.default_kernel : r.fastest;
    r.floor = measured && measured->floor ? measured->floor : problem_floor_of(p);
    rows.push_back(r);
  }
  return rows;
}

ReportTable summary_table(const ReportModel& model) {
  ReportTable t;
  auto column = [&](const char* header, bool numeric) {
    t.headers.push_back(header);
    t.numeric.push_back(numeric);
  };
  column("Problem", false);
  column("Floor", true);
  column("Default kernel", false);
  column("Median", true);
  column("% of floor", true);
  column("Fastest passing", false);
  column("Its median", true);
  column("vs naive", true);
  if (model.has_torch_eager) column("vs torch.eager", true);
  if (model.has_torch_compile) column("vs torch.compile", true);
  for (const SummaryRow& r : summary_rows(model)) {
    const ReportProblem& p = *r.problem;
    const ReportKernel* d = r.default_kernel;
    std::vector<ReportCell> row;
    row.push_back(report_cell(p.id, Style::plain, problem_summary(p)));
    row.push_back(floor_cell(r));
    std::string name = d ? d->id : kDash;
    if (d && !d->dispatches_to.empty())
      name += " \u2192 " + d->dispatches_to.substr(d->dispatches_to.find('.') + 1);
    row.push_back(report_cell(name, d ? Style::plain : Style::muted));
    row.push_back(kernel_cell(d));
    const auto percent = percent_of_floor(r);
    row.push_back(percent ? report_cell(format_percent(*percent)) : no_value_cell());
    row.push_back(r.fastest ? report_cell(r.fastest->id) : no_value_cell());
    row.push_back(kernel_cell(r.fastest));
    row.push_back(speedup_cell(d ? d->vs_baseline : std::nullopt));
    if (model.has_torch_eager) row.push_back(speedup_cell(d ? d->vs_torch_eager : std::nullopt));
    if (model.has_torch_compile)
      row.push_back(speedup_cell(d ? d->vs_torch_compile : std::nullopt));
    t.rows.push_back(std::move(row));
    for (const ReportKernel& k : p.kernels)
      if (is_failure(k.status))
        t.notes.push_back(
            fmt::format("{} / {} ({}): {}", p.id, k.id, to_string(k.status), k.reason));
  }
  return t;
}

json with_problem_summary(json report, const std::string& path, std::string& warning) {
  try {
    const ReportModel model = merge_reports({read_report_json(report, path)}, false);
    report["summary"]["problems"] = summary_json(model);
  } catch (const std::exception& e) {
    warning = std::string("the report's summary could not be drawn: ") + e.what();
  }
  return report;
}

json summary_json(const ReportModel& model) {
  json rows = json::array();
  for (const SummaryRow& r : summary_rows(model)) {
    const ReportProblem& p = *r.problem;
    json def = nullptr, fastest = nullptr, failures = json::array();
    if (const ReportKernel* d = r.default_kernel) {
      def = {{"id", d->id},
             {"dispatches_to", d->dispatches_to.empty() ? json(nullptr) : json(d->dispatches_to)},
             {"status", to_string(d->status)}};
      if (d->timing) def.update(timing_json(*d->timing));
      def["percent_of_floor"] = optional_number(percent_of_floor(r));
      def["vs_baseline"] = optional_number(d->vs_baseline);
      def["vs_torch_eager"] = optional_number(d->vs_torch_eager);
      def["vs_torch_compile"] = optional_number(d->vs_torch_compile);
    }
    if (r.fastest) {
      fastest = {{"id", r.fastest->id}};
      fastest.update(timing_json(*r.fastest->timing));
    }
    for (const ReportKernel& k : p.kernels)
      if (is_failure(k.status))
        failures.push_back(
            {{"kernel", k.id}, {"status", to_string(k.status)}, {"reason", k.reason}});
    rows.push_back({{"problem", p.id},
                    {"floor_ms", r.floor ? json(r.floor->ms) : json(nullptr)},
                    {"floor_bound", r.floor ? json(to_string(r.floor->bound)) : json(nullptr)},
                    {"default", def},
                    {"fastest", fastest},
                    {"failures", failures}});
  }
  return rows;
}

}  // namespace normbench
