// `normbench compare` against settings and reports made to slip past the gate or to attack
// whoever reads its output: NaN and out-of-range gate settings, a passed kernel without a
// time, a problem or verification edited after the run, a report of another tool, ids and
// reasons holding escape sequences, Markdown, HTML and megabytes.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using nlohmann::json;
using testing::CliRun;
using testing::quoted;
using testing::TempDir;

std::string fixture(const std::string& name) {
  return testing::source_path("tests/fixtures/compare/" + name + ".json");
}

json read_fixture(const std::string& name) {
  return json::parse(testing::read_text(fixture(name)));
}

CliRun compare(const TempDir& dir, const std::string& args) {
  return testing::run_binary(NORMBENCH_BINARY, dir, "compare " + args);
}

using testing::contains;

// NaN passed CLI11's range checks and turned the gate off: a 10% slower kernel exited 0.
TEST(CompareHostileReports, GateSettingsOutsideTheirRangeAreRefused) {
  TempDir dir;
  const std::string reports = quoted(fixture("baseline")) + " " + quoted(fixture("slower"));
  const struct {
    std::string option;
    std::string message;
  } cases[] = {
      {"--alpha nan",
       "--alpha: \"nan\" is not a decimal number; allowed: a decimal number from 1e-06 to 0.5"},
      {"--alpha 0", "--alpha: 0 is out of range"},
      {"--alpha 1e-300", "--alpha: 1e-300 is out of range"},
      {"--alpha 0.6", "--alpha: 0.6 is out of range"},
      {"--alpha inf", "--alpha: \"inf\" is not a decimal number"},
      {"--alpha ''", "--alpha: \"\" is not a decimal number"},
      {"--alpha 1e-320", "--alpha: 1e-320 is out of range"},
      {"--max-slowdown '0.05 '", "--max-slowdown: \"0.05 \" is not a decimal number"},
      {"--max-slowdown ' 0.05'", "--max-slowdown: \" 0.05\" is not a decimal number"},
      {"--max-slowdown 0x10", "--max-slowdown: \"0x10\" is not a decimal number"},
      {"--max-slowdown nan",
       "--max-slowdown: \"nan\" is not a decimal number; allowed: a decimal number from "
       "0 to 100"},
      {"--max-slowdown inf", "--max-slowdown: \"inf\" is not a decimal number"},
      {"--max-slowdown -0.1", "--max-slowdown: -0.1 is out of range"},
      {"--max-slowdown 1e400", "--max-slowdown: 1e400 is out of range"},
      {"--min-samples nan", "--min-samples"},
      {"--min-samples 2", "--min-samples"},
      {"--min-samples 1e3", "--min-samples"},
      {"--min-samples 99999999999", "--min-samples"},
  };
  for (const auto& c : cases) {
    const CliRun r = compare(dir, reports + " " + c.option);
    EXPECT_EQ(r.exit_code, 2) << c.option << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.err, c.message)) << c.option << "\n" << r.err;
  }
  // The bounds themselves are allowed; the slower kernel is still found.
  EXPECT_EQ(compare(dir, reports + " --alpha 0.5 --max-slowdown 0").exit_code, 1);
  // A value below the smallest double is the nearest one: in range, not refused.
  EXPECT_EQ(compare(dir, reports + " --max-slowdown 1e-320").exit_code, 1);
  // 10 samples a side cannot reach p < 1e-6: the slower kernel is untested, not passed.
  EXPECT_EQ(compare(dir, reports + " --alpha 1e-6").exit_code, 4);
}

// A timed run times every kernel that passes (or fails it), so a passed kernel without a time
// in one is a report edited after the run: refused, not passed as `not_timed`.
TEST(CompareHostileReports, APassedKernelWithoutATimeInATimedRunIsRefused) {
  TempDir dir;
  json candidate = read_fixture("baseline");
  ASSERT_EQ(candidate["settings"]["timing"], true);
  candidate["problems"][0]["kernels"][2]["timing"] = nullptr;  // passed, never timed
  testing::write_text(dir.file("untimed.json"), candidate.dump());
  const CliRun r = compare(dir, quoted(fixture("baseline")) + " untimed.json");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err,
                       "untimed.json: /problems/0/kernels/2: passed without a timing in a "
                       "timed run"))
      << r.err;
}

// A report that does not say whether its run was timed (no settings.timing) is not held to
// it: its untimed kernel is `not_timed`, which passes, and --strict fails.
TEST(CompareHostileReports, StrictDoesNotPassAKernelThatWasNotTimed) {
  TempDir dir;
  json candidate = read_fixture("baseline");
  candidate.erase("settings");
  candidate["problems"][0]["kernels"][2]["timing"] = nullptr;  // passed, never timed
  testing::write_text(dir.file("untimed.json"), candidate.dump());
  const std::string reports = quoted(fixture("baseline")) + " untimed.json";
  const CliRun lax = compare(dir, reports);
  EXPECT_EQ(lax.exit_code, 0) << lax.out << lax.err;
  EXPECT_TRUE(contains(lax.out, "not_timed")) << lax.out;
  EXPECT_FALSE(contains(lax.out + lax.err, "only correctness")) << lax.out;  // others timed
  const CliRun strict = compare(dir, reports + " --strict");
  EXPECT_EQ(strict.exit_code, 4) << strict.out << strict.err;
  EXPECT_TRUE(contains(strict.out, "no regression; 1 inconclusive (--strict: failing)"))
      << strict.out;
  const json j = json::parse(compare(dir, reports + " --strict --json").out);
  EXPECT_EQ(j["exit_code"], 4);
  EXPECT_EQ(j["summary"]["result"], "inconclusive");
}

// A candidate of `run --no-timing` times nothing: the gate passes it on correctness alone, and
// says so.
TEST(CompareHostileReports, ACandidateWithNoTimeAtAllIsNamedAsSuch) {
  TempDir dir;
  json candidate = read_fixture("baseline");
  candidate["settings"]["timing"] = false;
  for (json& problem : candidate["problems"])
    for (json& kernel : problem["kernels"]) kernel["timing"] = nullptr;
  testing::write_text(dir.file("untimed.json"), candidate.dump());
  const CliRun r = compare(dir, quoted(fixture("baseline")) + " untimed.json");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out + r.err, "so only correctness was compared")) << r.out << r.err;
  EXPECT_EQ(compare(dir, quoted(fixture("baseline")) + " untimed.json --strict").exit_code, 4);
}

// Reports come from anywhere (a pull request's CI artifact): their ids and reasons must not
// drive the terminal, render as HTML in a pull-request comment, or flood either.
TEST(CompareHostileReports, IdsAndReasonsCannotInjectIntoTheTableOrMarkdown) {
  TempDir dir;
  const std::string id =
      "layer_norm.x\x1b]0;pwned\x07`<img src=x onerror=alert(1)>\n| forged | row |";
  const std::string reason = "<img src=x onerror=alert(2)>`\x1b[2J" + std::string(100000, 'r');
  json baseline = read_fixture("baseline");
  baseline["problems"][0]["kernels"][1]["id"] = id;
  json candidate = baseline;
  candidate["problems"][0]["kernels"][1]["status"] = "failed";
  candidate["problems"][0]["kernels"][1]["reason"] = reason;
  candidate["problems"][0]["kernels"][1]["timing"] = nullptr;
  testing::write_text(dir.file("b.json"), baseline.dump());
  testing::write_text(dir.file("c.json"), candidate.dump());

  const CliRun table = compare(dir, "b.json c.json");
  EXPECT_EQ(table.exit_code, 1) << table.err;
  EXPECT_FALSE(contains(table.out, "\x1b")) << table.out.substr(0, 3000);
  EXPECT_FALSE(contains(table.out, "\n| forged")) << table.out.substr(0, 3000);
  EXPECT_TRUE(contains(table.out, "layer_norm.x\\u001b]0;pwned\\u0007`<img")) << table.out;
  EXPECT_TRUE(contains(table.out, "... (100033 bytes in all)")) << table.out.substr(0, 3000);
  EXPECT_LT(table.out.size(), 10000u);

  const CliRun markdown = compare(dir, "b.json c.json --format markdown");
  EXPECT_EQ(markdown.exit_code, 1) << markdown.err;
  std::string text = markdown.out;
  for (size_t at; (at = text.find("\\<img")) != std::string::npos;) text.erase(at, 5);
  EXPECT_FALSE(contains(text, "<img")) << markdown.out.substr(0, 3000);  // only escaped ones
  EXPECT_FALSE(contains(markdown.out, "\x1b"));
  EXPECT_FALSE(contains(markdown.out, "\n| forged")) << markdown.out.substr(0, 3000);
  EXPECT_TRUE(contains(markdown.out, "layer\\_norm") || contains(markdown.out, "layer_norm.x"));
  EXPECT_LT(markdown.out.size(), 20000u);
  EXPECT_TRUE(contains(markdown.out, "| `A_layer_norm` |")) << markdown.out.substr(0, 3000);

  // JSON is for machines: the id as it is.
  const json j = json::parse(compare(dir, "b.json c.json --json").out);
  bool found = false;
  for (const json& r : j["results"]) found = found || r["kernel"] == id;
  EXPECT_TRUE(found);
}

// A report can keep its config's hash and change a problem (hand-edited, stale, or from another
// tool): halving a problem's rows and every time made every kernel "faster" with exit 0.
TEST(CompareHostileReports, AProblemChangedUnderTheSameConfigHashIsRefused) {
  TempDir dir;
  json candidate = read_fixture("baseline");
  json& problem = candidate["problems"][0];
  problem["config"]["shape"][0] = problem["config"]["shape"][0].get<int64_t>() / 2;
  problem["shape"] = problem["config"]["shape"];
  candidate["config"]["resolved"]["problems"][0]["shape"] = problem["shape"];
  testing::write_text(dir.file("c.json"), candidate.dump());
  const CliRun r = compare(dir, quoted(fixture("baseline")) + " c.json");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "is not the same problem in baseline")) << r.err;
  EXPECT_TRUE(contains(r.err, "c.json")) << r.err;
  EXPECT_TRUE(contains(r.err, "--allow-mismatch")) << r.err;
  const CliRun allowed = compare(dir, quoted(fixture("baseline")) + " c.json --allow-mismatch");
  EXPECT_NE(allowed.exit_code, 2) << allowed.err;
  EXPECT_TRUE(contains(allowed.out + allowed.err, "not the same problem")) << allowed.out;
}

// Without its resolved config a problem's inputs and tolerance cannot be shown to be the
// baseline's: dropping `config` (and changing the format the table gives) was compared as op
// and shape alone, with exit 0.
TEST(CompareHostileReports, AProblemWithoutItsConfigOrWithAnotherFormatIsRefused) {
  TempDir dir;
  json no_config = read_fixture("baseline");
  no_config["problems"][0].erase("config");
  testing::write_text(dir.file("no_config.json"), no_config.dump());
  const CliRun missing = compare(dir, quoted(fixture("baseline")) + " no_config.json");
  EXPECT_EQ(missing.exit_code, 2) << missing.out << missing.err;
  EXPECT_TRUE(contains(missing.err, "only in the baseline")) << missing.err;
  const CliRun swapped = compare(dir, "no_config.json " + quoted(fixture("baseline")));
  EXPECT_EQ(swapped.exit_code, 2) << swapped.out << swapped.err;
  EXPECT_TRUE(contains(swapped.err, "only in the candidate")) << swapped.err;

  json other_dtype = read_fixture("baseline");
  other_dtype["problems"][0]["dtype"] = "float16";
  other_dtype["problems"][0]["config"].erase("dtype");
  other_dtype["config"]["resolved"]["problems"][0].erase("dtype");
  testing::write_text(dir.file("other_dtype.json"), other_dtype.dump());
  const CliRun dtype = compare(dir, quoted(fixture("baseline")) + " other_dtype.json");
  EXPECT_EQ(dtype.exit_code, 2) << dtype.out << dtype.err;
  EXPECT_TRUE(contains(dtype.err, R"((its dtype: "float32" against "float16"))")) << dtype.err;

  // The table's format must be its config's.
  json contradicting = read_fixture("baseline");
  contradicting["problems"][0]["dtype"] = "float16";
  testing::write_text(dir.file("contradicting.json"), contradicting.dump());
  const CliRun contradiction = compare(dir, quoted(fixture("baseline")) + " contradicting.json");
  EXPECT_EQ(contradiction.exit_code, 2) << contradiction.out << contradiction.err;
  EXPECT_TRUE(contains(contradiction.err, "contradicting.json: /problems/0/dtype"))
      << contradiction.err;
}

// A report of another tool is not a baseline for normbench's.
TEST(CompareHostileReports, AReportOfAnotherToolIsRefused) {
  TempDir dir;
  json other = read_fixture("baseline");
  other["tool"]["name"] = "other";
  testing::write_text(dir.file("other.json"), other.dump());
  const CliRun r = compare(dir, quoted(fixture("baseline")) + " other.json");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "different tools")) << r.err;
}

// A passed kernel whose verification says otherwise is refused, not believed: a trial that
// failed, elements out of tolerance, or a trial that checked nothing.
TEST(CompareHostileReports, APassedKernelWhoseVerificationSaysOtherwiseIsRefused) {
  TempDir dir;
  const auto refused = [&](const std::string& name, const std::function<void(json&)>& edit,
                           const std::string& expected) {
    json candidate = read_fixture("baseline");
    json& verification = candidate["problems"][0]["kernels"][2]["verification"];
    ASSERT_EQ(candidate["problems"][0]["kernels"][2]["status"], "passed");
    if (verification["trials"].empty()) verification["trials"] = json::array({{{"passed", true}}});
    edit(verification);
    testing::write_text(dir.file(name), candidate.dump());
    const CliRun r = compare(dir, quoted(fixture("baseline")) + " " + name);
    EXPECT_EQ(r.exit_code, 2) << name << r.out << r.err;
    EXPECT_TRUE(contains(r.err, expected)) << name << ": " << r.err;
  };
  refused(
      "failed_trial.json", [](json& v) { v["trials"][0]["passed"] = false; },
      "/verification/trials/0/passed: is false; allowed for a passed kernel: true");
  refused(
      "violations.json", [](json& v) { v["violations"] = 999; },
      "/verification/violations: 999 elements out of tolerance");
  refused(
      "trial_violations.json", [](json& v) { v["trials"][0]["violations"] = 3; },
      "/verification/trials/0/violations: 3 elements out of tolerance");
  refused(
      "nothing_checked.json", [](json& v) { v["trials"][0]["checked"] = 0; },
      "/verification/trials/0/checked: no element checked");
}

// `report` writes ids and reasons to terminals too (--out -): no escape sequence gets through
// in any text format, and JUnit stays well-formed XML with U+FFFE in a reason.
TEST(CompareHostileReports, ReportFormatsEscapeControlCharacters) {
  TempDir dir;
  json doc = read_fixture("baseline");
  doc["problems"][0]["kernels"][1]["id"] = "k\x1b]0;pwned\x07\x1b[2J";
  doc["problems"][0]["kernels"][0]["status"] = "failed";
  doc["problems"][0]["kernels"][0]["reason"] = std::string("nul\0here \xEF\xBF\xBE", 12);
  doc["problems"][0]["kernels"][0]["timing"] = nullptr;
  testing::write_text(dir.file("r.json"), doc.dump());
  for (const std::string format : {"markdown", "summary", "csv"}) {
    const CliRun r =
        testing::run_binary(NORMBENCH_BINARY, dir, "report r.json --out - --format " + format);
    EXPECT_EQ(r.exit_code, 0) << format << ": " << r.err;
    EXPECT_FALSE(contains(r.out, "\x1b")) << format << ": " << r.out.substr(0, 2000);
    EXPECT_FALSE(contains(r.out, std::string(1, '\0'))) << format;
    if (format != "summary") {  // the summary names default and fastest kernels only
      EXPECT_TRUE(contains(r.out, "u001b]0;pwned")) << format << ": " << r.out.substr(0, 2000);
    }
  }
  const CliRun junit = testing::run_binary(NORMBENCH_BINARY, dir, "report r.json --out r.xml");
  EXPECT_EQ(junit.exit_code, 0) << junit.err;
  EXPECT_FALSE(contains(testing::read_text(dir.file("r.xml")), "\xEF\xBF\xBE"));
}

}  // namespace
}  // namespace normbench
