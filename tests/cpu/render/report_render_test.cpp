// `normbench report`'s outputs: the Markdown tables, the self-contained HTML page and its
// SVG charts, on the H100 fixture merged with the hand-made PyTorch fixture.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "app/render/report_html.hpp"
#include "app/render/report_markdown.hpp"
#include "app/render/report_model.hpp"
#include "app/render/report_summary.hpp"
#include "app/render/report_sweeps.hpp"
#include "app/render/svg_chart.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using nlohmann::json;

ReportModel fixture_model() {
  return merge_reports(
      {read_report_file(testing::source_path("tests/fixtures/h100_kernelbench_v1.json")),
       read_report_file(testing::source_path("tests/fixtures/report/torch_example.json"))},
      false);
}

using testing::contains;

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// The lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(begin, end - begin);
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
    begin = end + 1;
  }
  return out;
}

// Unescaped '|' in a Markdown table line: one more than its cells.
size_t cell_separators(const std::string& line) {
  size_t n = 0;
  for (size_t i = 0; i < line.size(); ++i) n += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
  return n;
}

// Empty if every element of the HTML is closed in order (void elements and "/>" aside), else
// what is wrong. A stray '<' in text shows up as a bad tag.
std::string tag_balance_error(const std::string& html) {
  static const std::vector<std::string> kVoid = {"meta", "br", "wbr", "hr", "img", "input", "link"};
  std::vector<std::string> open;
  for (size_t at = html.find('<'); at != std::string::npos; at = html.find('<', at + 1)) {
    const size_t end = html.find('>', at);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(at);
    const std::string tag = html.substr(at + 1, end - at - 1);
    if (tag.empty()) return "empty tag at " + std::to_string(at);
    if (tag.rfind("!DOCTYPE", 0) == 0) continue;
    const bool closing = !tag.empty() && tag[0] == '/';
    const std::string name =
        tag.substr(closing ? 1 : 0, tag.find_first_of(" />", closing ? 1 : 0) - (closing ? 1 : 0));
    if (!std::regex_match(name, std::regex("[a-z][a-z0-9]*"))) return "bad tag <" + tag + ">";
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes " + (open.empty() ? "nothing" : "<" + open.back() + ">");
      open.pop_back();
    } else if (tag.back() != '/' && std::find(kVoid.begin(), kVoid.end(), name) == kVoid.end()) {
      open.push_back(name);
    }
  }
  return open.empty() ? "" : "<" + open.back() + "> never closed";
}

TEST(ReportMarkdown, HasOneTablePerProblemWithTheMergedNumbers) {
  const std::string md = render_markdown(fixture_model());
  EXPECT_EQ(md.rfind("# normbench report\n", 0), 0u);
  for (const char* id :
       {"A_layer_norm", "B_group_norm", "C_layer_norm_gelu_scale", "D_fixture_only"})
    EXPECT_TRUE(contains(md, std::string("\n## ") + id + "\n")) << id;
  EXPECT_TRUE(contains(
      md,
      "| h100_kernelbench_v1 | normbench 0.1.0 (ref: refs/he) | NVIDIA H100 80GB HBM3 | 3035 |"))
      << md;
  EXPECT_TRUE(
      contains(md,
               "| Kernel | Report | Verification | Max abs error | Deterministic | Median | 95% "
               "interval of the median | GB/s | % of floor | vs naive | vs torch.eager | vs "
               "torch.compile |"))
      << md;
  // naive 8.516 ms / default 0.4626 ms; torch.eager 1.602 ms; torch.compile 0.750 ms.
  EXPECT_TRUE(contains(
      md,
      "| layer_norm.default | h100_kernelbench_v1 | passed | 9.82e-07 | \u2014 | 462.6 "
      "\u00b5s | \u00b10.35% stdev (461.1\u2013466.6 \u00b5s) | 1233 | 40.6% | 18.4\u00d7 | "
      "3.46\u00d7 | 1.62\u00d7 |"))
      << md;
  EXPECT_TRUE(
      contains(md,
               "| layer_norm.naive (baseline) | h100_kernelbench_v1 | passed | 7.21e-07 | \u2014 | "
               "8.516 ms |"));
  EXPECT_TRUE(contains(
      md, "| torch.compile | torch_example | **FAILED** | 3.20e-05 | \u2014 | \u2014 | \u2014 |"))
      << md;
  EXPECT_TRUE(contains(
      md, "- torch.compile (FAILED): trial 0: 12 of 134217728 elements outside \\|y - ref\\|"));
  EXPECT_TRUE(contains(md, "**110.5% (suspicious)**"));
  EXPECT_TRUE(
      contains(md, "- layer_norm.warp_per_row (not supported): row longer than 1024 elements"));
  // Markup in the fixture's description is escaped.
  EXPECT_TRUE(contains(md, "\\<b\\>bandwidth\\</b\\>")) << md;

  // Every row of every table has as many cells as its header.
  const auto rows = lines_starting(md, "|");
  ASSERT_GT(rows.size(), 20u);
  size_t header_cells = 0;
  for (const auto& row : rows) {
    if (row.rfind("| Kernel |", 0) == 0 || row.rfind("| Report |", 0) == 0 ||
        row.rfind("| Problem |", 0) == 0)
      header_cells = cell_separators(row);
    EXPECT_EQ(cell_separators(row), header_cells) << row;
  }
}

TEST(ReportSummary, OpensTheReportWithOneRowPerProblem) {
  const ReportModel model = fixture_model();
  const std::string md = render_markdown(model);
  // First after the introduction, before the reports and the problems.
  EXPECT_LT(md.find("## Summary"), md.find("## Reports"));
  EXPECT_TRUE(
      contains(md,
               "| Problem | Floor | Default kernel | Median | % of floor | Fastest passing | "
               "Its median | vs naive | vs torch.eager | vs torch.compile |"))
      << md;
  // A: the default (462.6 us) against the floor (570.4 MB at 3035 GB/s), the fastest passing
  // kernel, and the default's speedups.
  EXPECT_TRUE(
      contains(md,
               "| A_layer_norm | 188.0 \u00b5s | layer_norm.default | 462.6 \u00b5s | 40.6% | "
               "layer_norm.split_row | 462.3 \u00b5s | 18.4\u00d7 | 3.46\u00d7 | 1.62\u00d7 |"))
      << md;
  // Failures beneath, named by problem and kernel.
  EXPECT_TRUE(contains(md,
                       "- C_layer_norm_gelu_scale / torch.compile (failed): trial 0: 12 of "
                       "134217728"))
      << md;
  const nlohmann::json rows = summary_json(model);
  ASSERT_EQ(rows.size(), model.problems.size());
  const nlohmann::json& a = rows[0];
  EXPECT_EQ(a["problem"], "A_layer_norm");
  EXPECT_NEAR(a["floor_ms"].get<double>(), 0.18796, 1e-4);
  EXPECT_EQ(a["default"]["id"], "layer_norm.default");
  EXPECT_NEAR(a["default"]["percent_of_floor"].get<double>(), 40.6, 0.05);
  EXPECT_NEAR(a["default"]["vs_torch_compile"].get<double>(), 1.62, 0.005);
  EXPECT_EQ(a["fastest"]["id"], "layer_norm.split_row");
  EXPECT_TRUE(a["failures"].empty());
  EXPECT_EQ(rows[2]["failures"][0]["kernel"], "torch.compile");
}

TEST(ReportMarkdown, OneReportHasNoReportOrTorchColumns) {
  const std::string md = render_markdown(merge_reports(
      {read_report_file(testing::source_path("tests/fixtures/h100_kernelbench_v1.json"))}, false));
  EXPECT_TRUE(contains(md, "| Kernel | Verification | Max abs error | Deterministic | Median |"));
  EXPECT_FALSE(contains(md, "torch.eager"));
  EXPECT_TRUE(
      contains(md, "| layer_norm_gelu_scale.split_row | passed | 1.27e-06 | \u2014 | 137.2 ms |"));
  EXPECT_TRUE(contains(md, "| 0.084\u00d7 |"));
}

TEST(ReportHtml, IsOneWellFormedSelfContainedPage) {
  const ReportModel model = fixture_model();
  const std::string html = render_html(model);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_TRUE(contains(html, "<meta charset=\"utf-8\">"));
  EXPECT_EQ(tag_balance_error(html), "");
  // Two charts per problem, nothing fetched, nothing run.
  EXPECT_EQ(count(html, "<svg "), 2 * model.problems.size());
  EXPECT_EQ(count(html, "</svg>"), 2 * model.problems.size());
  for (const char* banned :
       {"http", "<script", "<link", "<img", "<iframe", "@import", "url(", "src=", "href="})
    EXPECT_FALSE(contains(html, banned)) << banned;
  // Every '&' starts an entity.
  EXPECT_FALSE(std::regex_search(html, std::regex("&(?!(amp|lt|gt|quot|#[0-9]+);)")));
  // Same numbers as the Markdown.
  EXPECT_TRUE(contains(html, ">462.6 \u00b5s</td>"));
  EXPECT_TRUE(contains(html, ">18.4\u00d7</td>"));
  EXPECT_TRUE(contains(
      html,
      "<td class=\"bad\" title=\"trial 0: 12 of 134217728 elements outside |y - ref| &lt;= "));
  EXPECT_TRUE(contains(html, "<td class=\"num warn\""));
  EXPECT_TRUE(contains(
      html, "&lt;b&gt;bandwidth&lt;/b&gt; is &lt;suspicious&gt; &amp; &quot;escaped&quot;"));
  EXPECT_FALSE(contains(html, "<b>bandwidth"));
  // The charts: speedups on a log axis with labelled values, % of floor flagged past 100%.
  EXPECT_TRUE(contains(html, "Speedup (log scale"));
  EXPECT_TRUE(contains(html, ">18.4\u00d7</text>"));
  EXPECT_TRUE(contains(html, ">110.5% suspicious</text>"));
  EXPECT_TRUE(contains(html, ">100%</text>"));
}

TEST(ReportHtml, EscapesHostileReportText) {
  json kernel = {{"id", "<script>alert('x')</script>"},
                 {"description", "\"quoted\" & <b>bold</b>"},
                 {"status", "failed"},
                 {"reason", "</td></tr></table><script>"},
                 {"verification", {{"passed", false}}},
                 {"timing", nullptr}};
  json doc = {{"schema_version", 1},
              {"tool", {{"name", "<tool>"}}},
              {"config", {{"name", "<cfg>"}, {"hash", "&"}}},
              {"device", {{"name", "<GPU> & \"co\""}}},
              {"problems", json::array({{{"id", "p<1>"},
                                         {"op", "layer_norm"},
                                         {"shape", {2, 2}},
                                         {"kernels", json::array({kernel})}}})}};
  const ReportModel model = merge_reports({read_report_text(doc.dump(), "evil<&>.json")}, false);
  const std::string html = render_html(model);
  EXPECT_FALSE(contains(html, "<script"));
  EXPECT_EQ(tag_balance_error(html), "");
  EXPECT_TRUE(contains(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
  EXPECT_TRUE(contains(html, "&lt;GPU&gt; &amp; &quot;co&quot;"));
  EXPECT_TRUE(contains(html, "evil&lt;&amp;&gt;"));
  // Markdown: every '<' and '>' escaped, so no HTML gets through.
  const std::string md = render_markdown(model);
  EXPECT_FALSE(std::regex_search(md, std::regex("(^|[^\\\\])[<>]"))) << md;
  EXPECT_TRUE(contains(md, "\\</td\\>\\</tr\\>"));
}

TEST(ReportSvgChart, LinearAxisFlagsValuesPastTheEnd) {
  BarChart chart;
  chart.title = "share";
  chart.series = {{"% of copy", "#123456"}};
  chart.rows = {{"a", {50.0}}, {"b", {150.0}}, {"c", {std::nullopt}}};
  chart.flag_text = "suspicious";
  chart.format = [](double v) { return std::to_string(static_cast<int>(v)) + "%"; };
  const std::string svg = render_bar_chart(chart, 600);
  EXPECT_EQ(svg.rfind("<svg class=\"chart\" viewBox=\"0 0 600 ", 0), 0u);
  EXPECT_EQ(tag_balance_error(svg), "");
  EXPECT_TRUE(contains(svg, ">50%</text>"));
  EXPECT_TRUE(contains(svg, ">150% suspicious</text>"));
  EXPECT_TRUE(contains(svg, "fill=\"#d62728\""));  // the flagged bar
  EXPECT_EQ(count(svg, "fill=\"#123456\""), 2u);   // legend and the one bar within the axis
  for (const char* tick : {">0%<", ">20%<", ">100%<"}) EXPECT_TRUE(contains(svg, tick)) << tick;
}

TEST(ReportSvgChart, LogAxisCoversTheDataInDecadesAndDropsEmptySeries) {
  BarChart chart;
  chart.title = "speedup <&>";
  chart.scale = BarChart::Scale::log;
  chart.reference = 1.0;
  chart.series = {{"vs naive", "#111111"}, {"vs nothing", "#222222"}};
  chart.rows = {{"slow", {0.5, std::nullopt}}, {"fast", {20.0, std::nullopt}}};
  chart.format = [](double v) { return std::to_string(v).substr(0, 4) + "x"; };
  const std::string svg = render_bar_chart(chart);
  EXPECT_EQ(tag_balance_error(svg), "");
  EXPECT_TRUE(contains(svg, "speedup &lt;&amp;&gt;"));
  EXPECT_TRUE(contains(svg, ">0.50x</text>"));
  EXPECT_TRUE(contains(svg, ">20.0x</text>"));
  EXPECT_TRUE(contains(svg, ">0.10x</text>"));     // axis from 0.1...
  EXPECT_TRUE(contains(svg, ">100.x</text>"));     // ...to 100
  EXPECT_TRUE(contains(svg, "stroke-dasharray"));  // the 1x line
  EXPECT_FALSE(contains(svg, "vs nothing"));
  EXPECT_FALSE(contains(svg, "#222222"));
}

TEST(ReportRender, WhatRanOnTheDeviceIsAColumnAndALineWhereItIsNotOneKernel) {
  // The writer's fixture: one traced kernel on the given stream, one that ran a kernel on
  // another stream and a memset; and a device whose trace was unavailable.
  json report =
      json::parse(testing::read_text(testing::source_path("tests/fixtures/report/writer_v2.json")));
  report["devices"][0]["activity_trace"] = {{"available", false}, {"reason", "no libcupti"}};
  report["problems"].erase(2);  // the skipped twin of "gn", which the reader refuses
  const ReportModel model = merge_reports({read_report_json(report, "traced.json")}, false);
  const std::string md = render_markdown(model);
  EXPECT_TRUE(contains(md, "| Ran on the device |")) << md;
  EXPECT_TRUE(contains(md, "| layer_norm_rows\\<float\\> |")) << md;
  EXPECT_TRUE(contains(md, "| 2 operations: 1 kernel, 1 memset |")) << md;
  EXPECT_TRUE(contains(md,
                       "- group_norm.side_stream ran 1 kernel, 1 memset: spin 1.100 \u00b5s "
                       "(69%) on the other stream, memset 4.1 KB 500.0 ns (31%)"))
      << md;
  EXPECT_TRUE(contains(md,
                       "; before its first launch the device also ran 1 operation enqueued "
                       "by no launch call: copy, 2.0 us (left by the kernel before it, not "
                       "charged to this one)"))
      << md;
  EXPECT_FALSE(contains(md, "- layer_norm.naive ran")) << md;  // one kernel on the given stream
  EXPECT_TRUE(contains(md, "traced: no activity trace on GPU 0 (no libcupti)")) << md;
  const std::string html = render_html(model);
  EXPECT_TRUE(contains(html, "device time 2.900 \u00b5s of the 3.000 ms event-timed median"))
      << "the cell's tooltip";
}

// A report with a latency floor: its problem of 320 bytes is bound by it, which the summary,
// the problem's line and its chart say; the reports table shows the floors measured.
TEST(ReportRender, ALatencyBoundProblemSaysSo) {
  json report =
      json::parse(testing::read_text(testing::source_path("tests/fixtures/report/writer_v2.json")));
  report["problems"].erase(2);  // the skipped twin of "gn", which the reader refuses
  const ReportModel model = merge_reports({read_report_json(report, "small.json")}, false);
  const std::string md = render_markdown(model);
  EXPECT_TRUE(contains(md,
                       "| ln | 2.900 \u00b5s (latency) | \u2014 | \u2014 | \u2014 | "
                       "layer_norm.naive | 3.000 ms"))
      << md;
  EXPECT_TRUE(contains(md,
                       "layer_norm [4, 8], at least 320 B moved; floor 2.900 \u00b5s "
                       "(latency, L2 evicted)\n"))
      << md;
  // gn: no kernel passed, its floor all the same.
  EXPECT_TRUE(contains(md, "| gn | 2.900 \u00b5s (latency) | \u2014 |")) << md;
  EXPECT_TRUE(contains(md, "| Copy GB/s | Latency floor |")) << md;
  EXPECT_TRUE(contains(md,
                       "| 2000 | 2.9 \u00b5s cold, 2.1 \u00b5s warm (empty launch 1.8 "
                       "\u00b5s) |"))
      << md;
  EXPECT_TRUE(contains(md, "| GB/s | % of floor |")) << md;
  EXPECT_TRUE(contains(md, "| 50.0 | 0.1% |")) << md;
  const nlohmann::json rows = summary_json(model);
  EXPECT_EQ(rows[0]["floor_bound"], "latency");
  EXPECT_EQ(rows[0]["floor_ms"], 0.0029);
  const std::string html = render_html(model);
  EXPECT_EQ(tag_balance_error(html), "");
  EXPECT_TRUE(contains(html, "% of the floor, 2.900 \u00b5s (latency, L2 evicted)")) << html;
  EXPECT_TRUE(contains(html,
                       "title=\"of the floor 2.900 \u00b5s (latency, L2 evicted); 2.5% of "
                       "copy\">0.1%</td>"))
      << html;

  // Without the latency floor (an older run), the copy floor and no latency column.
  report.erase("latency_floor");
  report["devices"][0].erase("latency_floor");
  report["problems"][0]["kernels"][0].erase("floor");
  const std::string old =
      render_markdown(merge_reports({read_report_json(report, "o.json")}, false));
  EXPECT_FALSE(contains(old, "Latency floor")) << old;
  EXPECT_FALSE(contains(old, "(latency")) << old;
  EXPECT_TRUE(contains(old, "at least 320 B moved; floor 0.1600 ns (copy)\n")) << old;
}

// A hand-edited report's absurd times (1e300 ms for the baseline, 1e-300 ms for the rest, an
// interval up to 1e300 ms) give speedups, percentages and spreads of hundreds of digits in
// fixed point: the tables print them in three significant digits instead.
TEST(ReportRender, AbsurdTimesPrintInAFewDigits) {
  json report =
      json::parse(testing::read_text(testing::source_path("tests/fixtures/h100_edge_v1.json")));
  for (json& problem : report["problems"]) {
    for (json& kernel : problem["kernels"]) {
      if (!kernel.contains("timing") || kernel["timing"].is_null()) continue;
      json& t = kernel["timing"];
      const double ms =
          kernel["id"].get<std::string>().find(".naive") != std::string::npos ? 1e300 : 1e-300;
      for (const char* key : {"median_ms", "mean_ms", "min_ms", "max_ms"}) t[key] = ms;
      t["samples_ms"] = json::array({ms, ms, ms});
      t["median_ci_ms"] = json::array({ms, 1e300});
    }
  }
  const ReportModel model = merge_reports({read_report_json(report, "absurd.json")}, false);
  const std::regex long_number("[0-9]{20,}");
  const std::string md = render_markdown(model);
  EXPECT_FALSE(std::regex_search(md, long_number)) << md;
  EXPECT_TRUE(contains(md, "e+")) << md;
  const std::string html = render_html(model);
  EXPECT_FALSE(std::regex_search(html, long_number));
  EXPECT_EQ(tag_balance_error(html), "");
}

TEST(ReportRender, AKernelMostOfWhoseSamplesThrottledIsAWarningWithItsConditions) {
  json report =
      json::parse(testing::read_text(testing::source_path("tests/fixtures/report/writer_v2.json")));
  report["problems"].erase(2);  // the skipped twin of "gn", which the reader refuses
  report["devices"][0]["conditions"] = {{"available", false}, {"reason", "no NVML"}};
  const ReportModel model = merge_reports({read_report_json(report, "hot.json")}, false);
  const std::string md = render_markdown(model);
  EXPECT_TRUE(contains(md, "| **passed (warning)** |")) << md;
  EXPECT_TRUE(contains(md,
                       "- layer_norm.naive (warning): 2 of 3 samples taken while the GPU "
                       "throttled (sw_power_cap)"))
      << md;
  EXPECT_TRUE(contains(md, "hot: clocks and throttling not read on GPU 0 (no NVML)")) << md;
  const std::string html = render_html(model);
  EXPECT_TRUE(contains(html,
                       "SM 1980 MHz, memory 2619 MHz, 41 \u00b0C, 312 W before; SM 1755 "
                       "MHz, memory 2619 MHz, 84 \u00b0C, 699 W after; 2 of 3 samples "
                       "taken while the GPU throttled (sw_power_cap)"))
      << "the median's tooltip";
}

// A report of a sweep: rms over rows 1, 8 and 64 (written out of order), two kernels.
json sweep_report() {
  json problems = json::array();
  for (int rows : {8, 1, 64}) {
    auto timing = [](double ms) { return json{{"median_ms", ms}, {"samples_ms", {ms, ms, ms}}}; };
    const std::string id = "rms.rows-" + std::to_string(rows);
    problems.push_back(
        {{"id", id},
         {"op", "rms_norm"},
         {"shape", {rows, 4096}},
         {"config",
          {{"id", id},
           {"op", "rms_norm"},
           {"shape", {rows, 4096}},
           {"sweep", {{"family", "rms"}, {"point", {{"rows", rows}}}}}}},
         {"kernels",
          {{{"id", "rms_norm.default"}, {"status", "passed"}, {"timing", timing(0.004 * rows)}},
           {{"id", "rms_norm.naive"}, {"status", "passed"}, {"timing", timing(0.006 * rows)}}}}});
  }
  return {{"schema_version", 2},
          {"tool", {{"name", "normbench"}}},
          {"config", {{"name", "sweep"}, {"hash", "h"}}},
          {"device", nullptr},
          {"problems", problems}};
}

TEST(ReportSweeps, AFamilyIsDrawnAlongItsAxisInOrder) {
  const ReportModel model = merge_reports({read_report_json(sweep_report(), "sweep.json")}, false);
  const auto families = sweep_families(model);
  ASSERT_EQ(families.size(), 1u);
  EXPECT_EQ(families[0].family, "rms");
  EXPECT_EQ(families[0].axis, "rows");
  EXPECT_EQ(families[0].values, (std::vector<double>{1, 8, 64}));
  EXPECT_EQ(families[0].kernels, (std::vector<std::string>{"rms_norm.default", "rms_norm.naive"}));
  const std::string md = render_markdown(model);
  EXPECT_TRUE(contains(md, "## Sweep rms: median time against rows")) << md;
  EXPECT_TRUE(contains(md, "| rows | rms_norm.default | rms_norm.naive |")) << md;
  EXPECT_TRUE(
      contains(md, "| 1 | 4.000 \u00b5s | 6.000 \u00b5s |\n| 8 | 32.00 \u00b5s | 48.00 \u00b5s |"))
      << md;
  const std::string html = render_html(model);
  EXPECT_TRUE(contains(html, "<h2 id=\"sweeps\">Sweeps</h2>")) << html;
  EXPECT_TRUE(contains(html, "rms: median time against rows")) << html;
  EXPECT_EQ(count(html, "<polyline"), 2u);  // one line per kernel
  EXPECT_TRUE(contains(html, "median time (log)")) << "4 to 384 us spans two decades";
  EXPECT_EQ(tag_balance_error(html), "");
}

TEST(ReportSweeps, ProblemsOfNoFamilyOrOnePointDrawNothing) {
  json one = sweep_report();
  one["problems"].erase(1);
  one["problems"].erase(1);
  const ReportModel model = merge_reports({read_report_json(one, "one.json")}, false);
  EXPECT_TRUE(sweep_families(model).empty());
  EXPECT_FALSE(contains(render_html(model), "Sweeps"));
  EXPECT_TRUE(sweep_families(fixture_model()).empty());
  // Points of 0 or below are left out: the axis may be logarithmic.
  json negative = sweep_report();
  negative["problems"][0]["config"]["sweep"]["point"]["rows"] = -8;
  negative["problems"][1]["config"]["sweep"]["point"]["rows"] = 0;
  const ReportModel left = merge_reports({read_report_json(negative, "n.json")}, false);
  EXPECT_TRUE(sweep_families(left).empty());
  EXPECT_FALSE(contains(render_html(left), "nan"));
}

}  // namespace
}  // namespace normbench
