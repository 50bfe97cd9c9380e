// `normbench report` end to end: outputs, exit codes and messages of the CLI, and the HTML
// page rendered by a real browser (Debian's chromium, headless; skipped where it is missing).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using ReportRun = testing::CliRun;
using testing::quoted;

std::string h100() {
  return quoted(testing::source_path("tests/fixtures/h100_kernelbench_v1.json"));
}
std::string torch() {
  return quoted(testing::source_path("tests/fixtures/report/torch_example.json"));
}

// Runs `normbench report ARGS` (ARGS already shell-quoted) in `dir`, stdout and stderr captured.
ReportRun report(const testing::TempDir& dir, const std::string& args) {
  return testing::run_binary(NORMBENCH_BINARY, dir, "report " + args);
}

using testing::contains;

TEST(ReportCommand, WritesHtmlAtomically) {
  testing::TempDir dir;
  const std::string html = dir.file("out/report.html");
  const ReportRun r = report(dir, h100() + " " + torch() + " --out " + quoted(html));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "report: " + html + " (4 problems from 2 reports)\n");
  EXPECT_EQ(r.err, "");
  const std::string text = testing::read_text(html);
  EXPECT_EQ(text.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(contains(text, "<svg "));
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"out", "out/report.html"}));  // no temporaries
}

TEST(ReportCommand, WritesMarkdownToAFileOrStandardOutput) {
  testing::TempDir dir;
  const ReportRun file = report(dir, h100() + " " + torch() + " -o " + quoted(dir.file("r.md")));
  ASSERT_EQ(file.exit_code, 0) << file.err;
  const std::string md = testing::read_text(dir.file("r.md"));
  EXPECT_EQ(md.rfind("# normbench report\n", 0), 0u);
  EXPECT_TRUE(contains(md, "| vs torch.compile |"));

  const ReportRun out = report(dir, h100() + " " + torch() + " --out -");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.out, md);

  const ReportRun forced =
      report(dir, h100() + " --out " + quoted(dir.file("page.txt")) + " --format html");
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(testing::read_text(dir.file("page.txt")).rfind("<!DOCTYPE html>", 0), 0u);
}

TEST(ReportCommand, BadUsageAndUnreadableInputsExitTwo) {
  testing::TempDir dir;
  const ReportRun no_format = report(dir, h100() + " --out " + quoted(dir.file("r.pdf")));
  EXPECT_EQ(no_format.exit_code, 2);
  EXPECT_TRUE(contains(no_format.err, "cannot tell the format")) << no_format.err;

  EXPECT_EQ(report(dir, "--out " + quoted(dir.file("r.md"))).exit_code, 2);  // no input
  EXPECT_EQ(report(dir, h100()).exit_code, 2);                               // no --out
  EXPECT_EQ(report(dir, h100() + " --out x.md --format pdf").exit_code, 2);

  const ReportRun missing = report(dir, "/nonexistent/run.json --out " + quoted(dir.file("r.md")));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err,
            "normbench: /nonexistent/run.json: cannot read the report: No such file or "
            "directory\n");

  testing::write_text(dir.file("cut.json"), "{\"schema_version\": 1, \"problems\": [");
  const ReportRun cut = report(
      dir, h100() + " " + quoted(dir.file("cut.json")) + " --out " + quoted(dir.file("r.md")));
  EXPECT_EQ(cut.exit_code, 2);
  EXPECT_TRUE(contains(cut.err, dir.file("cut.json") + ": not valid JSON")) << cut.err;

  testing::write_text(dir.file("v9.json"), "{\"schema_version\": 9, \"problems\": []}");
  const ReportRun v9 =
      report(dir, quoted(dir.file("v9.json")) + " --out " + quoted(dir.file("r.md")));
  EXPECT_EQ(v9.exit_code, 2);
  EXPECT_TRUE(contains(v9.err, "v9.json: /schema_version: schema_version 9 is not supported"))
      << v9.err;

  testing::write_text(
      dir.file("nokernels.json"),
      R"({"schema_version": 1, "tool": {"name": "t"}, "config": {"name": "c", "hash": "h"},
          "device": null, "problems": [{"id": "A", "op": "layer_norm", "shape": [2]}]})");
  const ReportRun nokernels =
      report(dir, quoted(dir.file("nokernels.json")) + " --out " + quoted(dir.file("r.md")));
  EXPECT_EQ(nokernels.exit_code, 2);
  EXPECT_TRUE(
      contains(nokernels.err, "nokernels.json: /problems/0: missing required field \"kernels\""))
      << nokernels.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.md")));  // nothing written on failure

  // --out naming one of the inputs would destroy it.
  const std::string input = dir.file("run.json");
  testing::write_text(
      input, testing::read_text(testing::source_path("tests/fixtures/h100_kernelbench_v1.json")));
  const ReportRun over = report(dir, quoted(input) + " --out " + quoted(input) + " --format html");
  EXPECT_EQ(over.exit_code, 2);
  EXPECT_TRUE(contains(over.err, ": is the input file")) << over.err;
  EXPECT_EQ(testing::read_text(input),
            testing::read_text(testing::source_path("tests/fixtures/h100_kernelbench_v1.json")));
  // A hard link to the input is another name for the same file: the output's atomic rename
  // replaces that name only, and the input keeps its bytes.
  const std::string alias = dir.file("alias.json");
  std::filesystem::create_hard_link(input, alias);
  const ReportRun linked =
      report(dir, quoted(input) + " --out " + quoted(alias) + " --format html");
  EXPECT_EQ(linked.exit_code, 0) << linked.err;
  EXPECT_EQ(testing::read_text(input),
            testing::read_text(testing::source_path("tests/fixtures/h100_kernelbench_v1.json")));
}

// Times no GPU gives but that a report may hold (finite, positive: subnormal or near DBL_MAX)
// must still draw: the charts' tick loops never ended once an axis end rounded to 0 or to
// infinity. Bounded in memory and time, so that such a loop fails the test and not the machine.
TEST(ReportCommand, ExtremeTimesStillDrawChartsWithFewTicks) {
  testing::TempDir dir;
  const auto render = [&](const std::string& report_path, const std::string& html) {
    return testing::run_binary(
        "bash", dir,
        "-c " + quoted("ulimit -v 4000000 && exec timeout 60 " + quoted(NORMBENCH_BINARY) +
                       " report " + quoted(report_path) + " --out " + quoted(html)));
  };
  // kernelbench draws bar charts (speedups), scaling line charts (a sweep's median times).
  for (const char* name : {"kernelbench.json", "scaling.json"}) {
    const std::string original = testing::source_path("results/nvidia-h100-80gb-hbm3/") + name;
    ASSERT_EQ(render(original, dir.file("original.html")).exit_code, 0) << name;
    const size_t usual_size = testing::read_text(dir.file("original.html")).size();
    for (const double ms : {5e307, 1.7e308, 1e-323, 4.9e-324}) {
      SCOPED_TRACE(std::string(name) + " at " + std::to_string(ms) + " ms");
      nlohmann::json doc = nlohmann::json::parse(testing::read_text(original));
      nlohmann::json& timing = doc["problems"][0]["kernels"][0]["timing"];
      for (nlohmann::json& sample : timing["samples_ms"]) sample = ms;
      for (const char* key : {"median_ms", "mean_ms", "min_ms", "max_ms"}) timing[key] = ms;
      testing::write_text(dir.file("extreme.json"), doc.dump());
      const ReportRun r = render(dir.file("extreme.json"), dir.file("extreme.html"));
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const std::string html = testing::read_text(dir.file("extreme.html"));
      for (const char* bad : {"\"nan\"", "\"inf\"", "\"-inf\""})
        EXPECT_FALSE(contains(html, bad)) << bad;  // every coordinate is a number
      EXPECT_LT(html.size(), 2 * usual_size);      // a dozen ticks, not hundreds
    }
  }
}

TEST(ReportCommand, DifferentGpusNeedAllowMismatch) {
  testing::TempDir dir;
  std::string other =
      testing::read_text(testing::source_path("tests/fixtures/report/torch_example.json"));
  const std::string name = "NVIDIA H100 80GB HBM3";
  other.replace(other.find(name), name.size(), "NVIDIA A100-SXM4-80GB");
  testing::write_text(dir.file("a100.json"), other);
  const std::string args =
      h100() + " " + quoted(dir.file("a100.json")) + " --out " + quoted(dir.file("r.md"));

  const ReportRun refused = report(dir, args);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_TRUE(contains(refused.err, "different GPU models")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "--allow-mismatch")) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.md")));

  const ReportRun allowed = report(dir, args + " --allow-mismatch");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_TRUE(
      contains(allowed.err, "normbench: warning: the reports come from different GPU models"));
  EXPECT_TRUE(contains(testing::read_text(dir.file("r.md")), "\n## Warnings\n"));
}

// The first program of `names` found in PATH, or "".
std::string find_program(const std::vector<std::string>& names) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (const auto& name : names) {
    size_t begin = 0;
    while (begin <= dirs.size()) {
      size_t end = dirs.find(':', begin);
      if (end == std::string::npos) end = dirs.size();
      const std::filesystem::path candidate =
          std::filesystem::path(dirs.substr(begin, end - begin)) / name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
      begin = end + 1;
    }
  }
  return "";
}

// Screenshots `html` as the CI does; returns the PNG's bytes ("" if the browser failed).
std::string screenshot(const std::string& browser, const testing::TempDir& dir,
                       const std::string& html, const std::string& png) {
  const std::string command =
      (find_program({"timeout"}).empty() ? "" : "timeout 120 ") + quoted(browser) +
      " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars"
      " --user-data-dir=" +
      quoted(dir.file("profile")) + " --screenshot=" + quoted(png) + " --window-size=1200,2000 " +
      quoted("file://" + html) + " >" + quoted(dir.file("browser.log")) + " 2>&1";
  if (std::system(command.c_str()) != 0 || !std::filesystem::exists(png)) return "";
  return testing::read_text(png);
}

uint32_t big_endian32(const std::string& bytes, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

TEST(ReportBrowser, ChromiumRendersTheHtmlReport) {
  const std::string browser = find_program({"chromium", "chromium-browser", "google-chrome"});
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install -y chromium)";
  testing::TempDir dir;
  const std::string html = dir.file("report.html");
  const ReportRun r = report(dir, h100() + " " + torch() + " --out " + quoted(html));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  testing::write_text(dir.file("blank.html"), "<!DOCTYPE html><html><body></body></html>");

  const std::string page = screenshot(browser, dir, html, dir.file("report.png"));
  ASSERT_FALSE(page.empty()) << testing::read_text(dir.file("browser.log"));
  const std::string blank = screenshot(browser, dir, dir.file("blank.html"), dir.file("blank.png"));
  ASSERT_FALSE(blank.empty()) << testing::read_text(dir.file("browser.log"));

  // A PNG of the window's size...
  ASSERT_GT(page.size(), 24u);
  EXPECT_EQ(page.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(page.substr(12, 4), "IHDR");
  EXPECT_EQ(big_endian32(page, 16), 1200u);
  EXPECT_EQ(big_endian32(page, 20), 2000u);
  // ...with far more in it than an empty page of the same size (text, tables and charts
  // compress much worse than one flat colour: about 300 kB against 11 kB).
  EXPECT_GT(page.size(), 40u * 1024) << "screenshot looks blank";
  EXPECT_GT(page.size(), 4 * blank.size()) << "screenshot is not much more than a blank page";
}

}  // namespace
}  // namespace normbench
