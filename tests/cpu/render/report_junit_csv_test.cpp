// `normbench report --format junit|csv` on the H100 fixture and on a report made to hurt: every
// status mapped (failed -> failure, error and not_run -> error, not_supported and skipped ->
// skipped), counts consistent, hostile text escaped (XML) or quoted (RFC 4180) and read back.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "app/render/report_csv.hpp"
#include "app/render/report_format.hpp"
#include "app/render/report_junit.hpp"
#include "app/render/report_model.hpp"
#include "app/render/xml_text.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using nlohmann::json;

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

const std::string kHostile = "a<b & \"c\" 'd'\n,e\x01";

// A report with one kernel of each status; the failed one's reason is hostile.
ReportModel statuses_model() {
  json doc =
      json::parse(testing::read_text(testing::source_path("tests/fixtures/merge/unsharded.json")));
  json& kernels = doc["problems"][0]["kernels"];  // A: naive ... warp_per_row (not_supported)
  auto set = [&](size_t k, const char* status, const std::string& reason) {
    kernels[k]["status"] = status;
    kernels[k]["reason"] = reason;
    kernels[k]["timing"] = nullptr;
    kernels[k]["bandwidth"] = nullptr;
  };
  set(1, "failed", kHostile);
  set(2, "error", "crashed: SIGSEGV");
  set(3, "not_run", "not run: the run stopped early");
  set(4, "skipped", "problem skipped: does not fit");
  return merge_reports({read_report_json(doc, "runs/a&b.json")}, false);
}

// Empty if every element is closed in order and every '&' starts an entity, else what is
// wrong: enough to catch unescaped text, which is what the renderer could get wrong.
std::string xml_error(const std::string& xml) {
  std::vector<std::string> open;
  for (size_t at = xml.find('<'); at != std::string::npos; at = xml.find('<', at + 1)) {
    const size_t end = xml.find('>', at);
    if (end == std::string::npos) return "unterminated tag";
    const std::string tag = xml.substr(at + 1, end - at - 1);
    if (tag[0] == '?') continue;
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0) return "odd quotes in <" + tag + ">";
    if (tag.find('<') != std::string::npos) return "'<' inside <" + tag + ">";
    const bool closing = tag[0] == '/';
    const std::string name = tag.substr(closing, tag.find_first_of(" />", closing) - closing);
    if (closing) {
      if (open.empty() || open.back() != name) return "</" + name + "> out of order";
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(name);
    }
  }
  if (!open.empty()) return "<" + open.back() + "> not closed";
  const std::regex entity("&(amp|lt|gt|quot|apos|#[0-9]+);");
  for (size_t at = xml.find('&'); at != std::string::npos; at = xml.find('&', at + 1))
    if (!std::regex_search(xml.substr(at, 8), entity, std::regex_constants::match_continuous))
      return "bare '&' at " + std::to_string(at);
  for (char c : xml)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n') return "a control character";
  return "";
}

TEST(ReportJunit, OneTestCasePerProblemAndKernelWithEachStatusMapped) {
  const std::string xml = render_junit(statuses_model());
  EXPECT_EQ(xml_error(xml), "") << xml;
  EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0), 0u);
  EXPECT_EQ(count(xml, "<testsuite "), 3u);
  EXPECT_EQ(count(xml, "<testcase "), 17u);
  EXPECT_NE(xml.find("<testsuites name=\"normbench\" tests=\"17\" failures=\"1\" errors=\"2\" "
                     "skipped=\"2\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testsuite name=\"A_layer_norm\" tests=\"6\" failures=\"1\" errors=\"2\" "
                     "skipped=\"2\">"),
            std::string::npos);
  EXPECT_EQ(count(xml, "<failure "), 1u);
  EXPECT_NE(xml.find("<error type=\"error\" message=\"crashed: SIGSEGV\">"), std::string::npos);
  EXPECT_NE(xml.find("<error type=\"not_run\""), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"not supported: "), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"skipped: problem skipped: does not fit\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("<testcase classname=\"A_layer_norm\" name=\"layer_norm.naive\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<system-out>median 8.466 ms (10 samples), 67.4 GB/s, 2.2% of copy, 1.00"),
            std::string::npos)
      << xml;
  // The hostile reason, escaped in the attribute and in the text.
  const std::string escaped = "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&#10;,e\xEF\xBF\xBD";
  EXPECT_NE(xml.find("message=\"" + escaped + "\">" + escaped + "</failure>"), std::string::npos)
      << xml;
}

TEST(ReportJunit, SeveralReportsNameTheirSource) {
  const ReportModel model = merge_reports(
      {read_report_file(testing::source_path("tests/fixtures/h100_kernelbench_v1.json")),
       read_report_file(testing::source_path("tests/fixtures/report/torch_example.json"))},
      false);
  const std::string xml = render_junit(model);
  EXPECT_EQ(xml_error(xml), "");
  EXPECT_NE(xml.find("name=\"torch.eager [torch_example]\""), std::string::npos) << xml;
}

TEST(XmlEscape, EveryMarkupCharacterAndNoControlCharacters) {
  EXPECT_EQ(xml_escape("<&>\"'"), "&lt;&amp;&gt;&quot;&#39;");
  EXPECT_EQ(xml_escape("a\tb\rc\nd"), "a&#9;b&#13;c&#10;d");
  EXPECT_EQ(xml_escape(std::string("x\0y", 3)), "x\xEF\xBF\xBDy");
  EXPECT_EQ(xml_escape("\x7f"), "\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("µs ±"), "µs ±");  // UTF-8 passes through
  // ... but for U+FFFE and U+FFFF, which are UTF-8 and not XML 1.0 characters
  EXPECT_EQ(xml_escape("a\xEF\xBF\xBE"
                       "b\xEF\xBF\xBF"
                       "c\xEF\xBF\xBD"),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD"
            "c\xEF\xBF\xBD");
}

// Parses RFC 4180 text into rows of fields (quoted fields may hold commas, quotes, CR, LF).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, was_quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      EXPECT_TRUE(field.empty()) << "a quote inside an unquoted field";
      quoted = was_quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
      was_quoted = false;
    } else if (c == '\r') {
      EXPECT_EQ(text[i + 1], '\n') << "a bare CR outside quotes";
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      was_quoted = false;
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  EXPECT_FALSE(quoted) << "an unterminated quoted field";
  EXPECT_TRUE(rows.back().empty() && field.empty()) << "no line end after the last row";
  rows.pop_back();
  (void)was_quoted;
  return rows;
}

TEST(ReportCsv, OneRowPerProblemAndKernelWithAHeaderAndRfc4180Quoting) {
  const std::string csv = render_csv(statuses_model());
  const auto rows = parse_csv(csv);
  ASSERT_EQ(rows.size(), 18u);  // header + 17 kernels
  const std::vector<std::string>& header = rows[0];
  for (const auto& row : rows) ASSERT_EQ(row.size(), header.size());
  auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  for (const std::string name :
       {"problem", "kernel", "status", "reason", "median_ms", "spread_percent", "gb_per_s",
        "percent_of_copy", "floor_ms", "floor_bound", "percent_of_floor", "speedup_vs_baseline",
        "device"})
    ASSERT_LT(column(name), header.size()) << name;
  const auto& naive = rows[1];
  EXPECT_EQ(naive[column("report")], "a&b");
  EXPECT_EQ(naive[column("problem")], "A_layer_norm");
  EXPECT_EQ(naive[column("kernel")], "layer_norm.naive");
  EXPECT_EQ(naive[column("status")], "passed");
  EXPECT_EQ(naive[column("device")], "0");
  EXPECT_NEAR(std::stod(naive[column("median_ms")]), 8.4657917, 1e-6);
  EXPECT_NEAR(std::stod(naive[column("percent_of_copy")]), 2.2172, 1e-3);
  // A report without a latency floor: its floor is the copy's.
  EXPECT_EQ(naive[column("floor_bound")], "copy");
  EXPECT_NEAR(std::stod(naive[column("percent_of_floor")]), 2.2172, 1e-3);
  EXPECT_GT(std::stod(naive[column("floor_ms")]), 0.0);
  EXPECT_EQ(std::stod(naive[column("speedup_vs_baseline")]), 1.0);
  EXPECT_GT(std::stod(naive[column("spread_percent")]), 0.0);
  const auto& failed = rows[2];
  EXPECT_EQ(failed[column("status")], "failed");
  // read back with its line break; its other control character escaped
  EXPECT_EQ(failed[column("reason")], "a<b & \"c\" 'd'\n,e\\u0001");
  EXPECT_EQ(failed[column("median_ms")], "");
  EXPECT_EQ(rows[6][column("status")], "not_supported");
  EXPECT_EQ(csv.find('\n'), csv.find("\r\n") + 1);  // CRLF line ends
}

// A spreadsheet runs a cell starting with =, +, -, @ as a formula: text from reports (ids,
// reasons, the report's name) is written with a leading quote there, numbers as they are.
TEST(ReportCsv, TextThatWouldRunAsAFormulaIsNeutralised) {
  json doc =
      json::parse(testing::read_text(testing::source_path("tests/fixtures/merge/unsharded.json")));
  json& problem = doc["problems"][0];
  problem["id"] = "=HYPERLINK(\"http://example.com\",\"x\")";
  problem["kernels"][1]["id"] = "+cmd|' /C calc'!A0";
  problem["kernels"][1]["status"] = "failed";
  problem["kernels"][1]["reason"] = "-2+3";
  problem["kernels"][1]["timing"] = nullptr;
  const std::string csv = render_csv(merge_reports({read_report_json(doc, "@SUM(1).json")}, false));
  const auto rows = parse_csv(csv);
  const std::vector<std::string>& header = rows[0];
  auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const auto& row = rows[2];
  EXPECT_EQ(row[column("report")], "'@SUM(1)");
  EXPECT_EQ(row[column("problem")], "'=HYPERLINK(\"http://example.com\",\"x\")");
  EXPECT_EQ(row[column("kernel")], "'+cmd|' /C calc'!A0");
  EXPECT_EQ(row[column("reason")], "'-2+3");
  EXPECT_EQ(rows[1][column("kernel")], "layer_norm.naive");  // plain text stays as it is
  // A leading tab or CR is escaped like every control character, so it starts nothing.
  EXPECT_EQ(csv_text("\tx"), "\\u0009x");
  EXPECT_EQ(csv_text("\rx"), "\\u000dx");
  EXPECT_EQ(csv_text("k\x1b]0;title\x07"), "k\\u001b]0;title\\u0007");
  EXPECT_EQ(csv_text("a=b"), "a=b");
  EXPECT_EQ(csv_text(""), "");
}

// A report of several GPUs (merged shards here) shows each with its own copy bandwidth.
TEST(ReportSources, EveryGpuOfAMergedReport) {
  const ReportModel model = merge_reports(
      {read_report_file(testing::source_path("tests/fixtures/merge/merged.json"))}, false);
  const ReportTable table = sources_table(model);
  ASSERT_EQ(table.rows.size(), 1u);
  const auto& row = table.rows[0];
  EXPECT_EQ(row[2].text, "2 \u00d7 NVIDIA H100 80GB HBM3");
  EXPECT_EQ(row[2].title,
            "GPU 0 of shard 1: NVIDIA H100 80GB HBM3, GPU 0 of shard 2: NVIDIA "
            "H100 80GB HBM3");
  EXPECT_EQ(row[3].text, "3039, 3022");
}

TEST(CsvField, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(csv_field("plain text; 1.5 ms"), "plain text; 1.5 ms");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\r"), "\"cr\r\"");
  EXPECT_EQ(csv_field(""), "");
}

}  // namespace
}  // namespace normbench
