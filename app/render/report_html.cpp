#include "app/render/report_html.hpp"

#include <fmt/format.h>

#include "app/render/report_format.hpp"
#include "app/render/report_summary.hpp"
#include "app/render/report_sweeps.hpp"
#include "app/render/report_training.hpp"
#include "app/render/svg_chart.hpp"
#include "app/render/xml_text.hpp"

namespace normbench {

namespace {

constexpr const char* kStyle = R"css(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
       margin: 24px auto; max-width: 1180px; padding: 0 16px; color: #1f2328; background: #fff; }
h1 { font-size: 26px; margin-bottom: 4px; }
h2 { font-size: 20px; margin-top: 36px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
p.lead, p.problem { color: #444; }
table { border-collapse: collapse; margin: 8px 0 12px; font-size: 13px; }
table.kernels { font-size: 12.5px; }
th, td { border: 1px solid #d0d7de; padding: 3px 6px; vertical-align: top; }
th { background: #f6f8fa; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr:nth-child(even) td { background: #fafbfc; }
td.good { color: #1a7f37; }
td.bad { color: #cf222e; font-weight: bold; }
td.warn { color: #9a6700; font-weight: bold; background: #fff8c5; white-space: normal; }
div.wide { overflow-x: auto; }
td.muted { color: #6e7781; }
td.slower { color: #bc4c00; }
ul.notes { font-size: 13px; color: #444; }
ul.warnings li { color: #9a6700; }
div.charts { display: flex; flex-wrap: wrap; gap: 16px; }
svg.chart { max-width: 100%; height: auto; border: 1px solid #eaeef2; padding: 8px; }
)css";

std::string cell_class(const ReportCell& cell, bool numeric) {
  std::string classes = numeric ? "num" : "";
  const char* style = cell.style == ReportCell::Style::good     ? "good"
                      : cell.style == ReportCell::Style::bad    ? "bad"
                      : cell.style == ReportCell::Style::warn   ? "warn"
                      : cell.style == ReportCell::Style::muted  ? "muted"
                      : cell.style == ReportCell::Style::slower ? "slower"
                                                                : "";
  if (*style) classes += std::string(classes.empty() ? "" : " ") + style;
  return classes.empty() ? "" : " class=\"" + classes + "\"";
}

// Escaped header text that may wrap after a dot: "vs torch.<wbr>compile".
std::string breakable(const std::string& escaped) {
  std::string out;
  for (char c : escaped) out += c == '.' ? std::string(".<wbr>") : std::string(1, c);
  return out;
}

std::string render_table(const ReportTable& t, const char* css_class) {
  std::string out =
      std::string("<div class=\"wide\"><table class=\"") + css_class + "\">\n<thead><tr>";
  for (const auto& h : t.headers) out += "<th>" + breakable(xml_escape(h)) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (size_t c = 0; c < row.size(); ++c) {
      const ReportCell& cell = row[c];
      const std::string title =
          cell.title.empty() ? "" : " title=\"" + xml_escape(cell.title) + "\"";
      out += "<td" + cell_class(cell, c < t.numeric.size() && t.numeric[c]) + title + ">" +
             xml_escape(cell.text) + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table></div>\n";
  if (!t.notes.empty()) {
    out += "<ul class=\"notes\">\n";
    for (const auto& n : t.notes) out += "<li>" + xml_escape(n) + "</li>\n";
    out += "</ul>\n";
  }
  return out;
}

// The label of a kernel in charts: its id, and its report when several reports have it.
std::string chart_label(const ReportModel& model, const ReportProblem& p, const ReportKernel& k) {
  int count = 0;
  for (const auto& other : p.kernels) count += other.id == k.id;
  return count > 1 ? k.id + " [" + model.sources[k.source].label + "]" : k.id;
}

std::string speedup_chart(const ReportModel& model, const ReportProblem& p) {
  BarChart chart;
  chart.title = "Speedup (log scale; right of the dashed line is faster)";
  chart.scale = BarChart::Scale::log;
  chart.reference = 1.0;
  chart.format = [](double v) { return format_speedup(v); };
  chart.series.push_back({baseline_header(p), "#4e79a7"});
  const bool eager = find_report_kernel(p, kTorchEagerId) != nullptr;
  const bool compiled = find_report_kernel(p, kTorchCompileId) != nullptr;
  if (eager) chart.series.push_back({std::string("vs ") + kTorchEagerId, "#f28e2b"});
  if (compiled) chart.series.push_back({std::string("vs ") + kTorchCompileId, "#59a14f"});
  for (const auto& k : p.kernels) {
    if (!k.timing) continue;
    BarRow row{chart_label(model, p, k), {k.vs_baseline}};
    if (eager) row.values.push_back(k.vs_torch_eager);
    if (compiled) row.values.push_back(k.vs_torch_compile);
    chart.rows.push_back(std::move(row));
  }
  return render_bar_chart(chart);
}

// Past 100% a kernel beat its floor: suspicious where the floor is the copy's, a tie within
// the events' resolution where it is the latency floor.
std::string floor_chart(const ReportModel& model, const ReportProblem& p) {
  BarChart chart;
  const std::optional<ProblemFloor> floor = problem_floor_of(p);
  chart.title = "% of the floor" + (floor ? ", " + floor_text(*floor, p.l2_evicted) : "");
  chart.scale = BarChart::Scale::linear;
  chart.axis_min = 0.0;
  chart.axis_max = 100.0;
  chart.reference = 100.0;
  chart.flag_text = floor && floor->bound == FloorBound::latency ? "past the floor" : "suspicious";
  chart.format = [](double v) { return format_percent(v); };
  chart.tick_format = [](double v) { return fmt::format("{:.0f}%", v); };
  chart.series.push_back({"% of floor", "#76b7b2"});
  for (const auto& k : p.kernels)
    if (k.timing && k.percent_of_floor)
      chart.rows.push_back({chart_label(model, p, k), {k.percent_of_floor}});
  return render_bar_chart(chart);
}

}  // namespace

std::string render_html(const ReportModel& model) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>normbench report</title>\n<style>" +
      std::string(kStyle) + "</style>\n</head>\n<body>\n<h1>normbench report</h1>\n";
  out +=
      "<p class=\"lead\">Median time of each kernel over its samples, with the 95% "
      "confidence interval of the median (reports of schema 1: the relative standard "
      "deviation) and the fastest and slowest sample. Deterministic: two launches on the same "
      "inputs gave bitwise identical outputs. GB/s is the minimum bytes a "
      "kernel must move (x read and y written once, weight and bias read once) over the "
      "median time. % of floor is the problem&#39;s floor over the median: the floor is its "
      "minimum bytes at the report&#39;s measured device-to-device copy bandwidth (more than "
      "100% of it is suspicious) or, where longer, the latency floor: the shortest launch that "
      "reads and writes a few cache lines, with L2 evicted or kept as the problem&#39;s samples "
      "were. Speedups are the other kernel&#39;s "
      "median over this kernel&#39;s median (above 1&#215;: this one is faster). Hover a "
      "cell for details.</p>\n";
  out += "<h2 id=\"summary\">Summary</h2>\n" + render_table(summary_table(model), "summary");
  if (!training_pairs(model).empty())
    out +=
        "<h2 id=\"training\">Forward and backward</h2>\n<p>Each backward problem beside the "
        "forward problem of the same shape and format: a training step&#39;s "
        "normalization, normbench&#39;s defaults against torch.compile&#39;s, each median from "
        "the report that holds its problem.</p>\n" +
        render_table(training_table(model), "training");
  const std::vector<SweepFamily> sweeps = sweep_families(model);
  if (!sweeps.empty()) {
    out += "<h2 id=\"sweeps\">Sweeps</h2>\n<div class=\"charts\">\n";
    for (const SweepFamily& f : sweeps) out += render_line_chart(sweep_chart(f));
    out += "</div>\n";
  }
  out += "<h2>Reports</h2>\n" + render_table(sources_table(model), "sources");
  if (!model.warnings.empty()) {
    out += "<h2>Warnings</h2>\n<ul class=\"warnings\">\n";
    for (const auto& w : model.warnings) out += "<li>" + xml_escape(w) + "</li>\n";
    out += "</ul>\n";
  }
  for (const auto& p : model.problems) {
    out += "<section>\n<h2 id=\"" + xml_escape(p.id) + "\">" + xml_escape(p.id) + "</h2>\n";
    out += "<p class=\"problem\">" + xml_escape(problem_summary(p));
    if (!p.description.empty()) out += "<br>" + xml_escape(p.description);
    out += "</p>\n" + render_table(problem_table(model, p), "kernels");
    out += "<div class=\"charts\">\n" + speedup_chart(model, p) + floor_chart(model, p) +
           "</div>\n</section>\n";
  }
  return out + "</body>\n</html>\n";
}

}  // namespace normbench
