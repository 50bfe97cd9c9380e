// End-to-end tests of `normbench compare` on the committed fixtures in tests/fixtures/compare
// (regenerate them with make_fixtures.py there): exit codes and the key parts of the output.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/cpu/test_support.hpp"

namespace {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string fixture(const std::string& name) {
  return std::string(NORMBENCH_SOURCE_DIR) + "/tests/fixtures/compare/" + name + ".json";
}

// Runs `normbench compare ARGS` (ARGS already shell-quoted where needed).
CliRun compare(const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string stem = (dir / ("normbench_compare_cli_" + std::to_string(::getpid()))).string();
  const std::string command = std::string("'") + NORMBENCH_BINARY + "' compare " + args + " >'" +
                              stem + ".out' 2>'" + stem + ".err'";
  const int status = std::system(command.c_str());
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(stem + ".out");
  r.err = slurp(stem + ".err");
  std::filesystem::remove(stem + ".out");
  std::filesystem::remove(stem + ".err");
  return r;
}

CliRun compare_fixtures(const std::string& baseline, const std::string& candidate,
                        const std::string& options = "") {
  return compare("'" + fixture(baseline) + "' '" + fixture(candidate) + "' " + options);
}

// The --json document of a comparison, and the verdict of one kernel in it.
nlohmann::json compare_json(const std::string& baseline, const std::string& candidate,
                            const std::string& options = "") {
  const CliRun r = compare_fixtures(baseline, candidate, "--json " + options);
  return nlohmann::json::parse(r.out);
}

std::string verdict_of(const nlohmann::json& j, const std::string& kernel) {
  for (const auto& r : j["results"])
    if (r["kernel"] == kernel) return r["verdict"];
  return "(absent)";
}

// Every verdict is one of `allowed` (as a space-separated list).
void expect_only_verdicts(const nlohmann::json& j, const std::string& allowed) {
  for (const auto& r : j["results"])
    EXPECT_NE((" " + allowed + " ").find(" " + r["verdict"].get<std::string>() + " "),
              std::string::npos)
        << r["problem"] << " " << r["kernel"] << ": " << r["verdict"];
}

using normbench::testing::contains;

TEST(CompareCli, IdenticalReportsAreSame) {
  const CliRun r = compare_fixtures("baseline", "identical");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "14 kernels: 13 same, 1 unchanged_status")) << r.out;
  EXPECT_TRUE(contains(r.out, "result: no regression")) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST(CompareCli, RerunsOfTheSameBuildAreNeverSlower) {
  for (const char* candidate : {"rerun_same", "rerun_drift", "noisy_same"}) {
    const CliRun r = compare_fixtures("baseline", candidate, "--strict");
    EXPECT_EQ(r.exit_code, 0) << candidate << "\n" << r.out << r.err;
    const auto j = compare_json("baseline", candidate);
    expect_only_verdicts(j, "same unchanged_status");
    EXPECT_EQ(j["summary"]["regressions"], 0) << candidate;
  }
}

TEST(CompareCli, SlowerIsARegression) {
  const CliRun r = compare_fixtures("baseline", "slower");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "slower (REGRESSION)")) << r.out;
  EXPECT_TRUE(contains(r.out, "+10.0%")) << r.out;
  EXPECT_TRUE(contains(r.out, "result: REGRESSION: 1 regression")) << r.out;
  const auto j = compare_json("baseline", "slower");
  EXPECT_EQ(verdict_of(j, "group_norm.default"), "slower");
  EXPECT_EQ(j["summary"]["counts"]["slower"], 1);
  EXPECT_EQ(j["exit_code"], 1);
  // A bigger minimum effect accepts the 10%.
  EXPECT_EQ(compare_fixtures("baseline", "slower", "--max-slowdown 0.15").exit_code, 0);
}

TEST(CompareCli, FasterIsNotARegressionAndTheReverseIs) {
  const CliRun r = compare_fixtures("baseline", "faster");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(verdict_of(compare_json("baseline", "faster"), "layer_norm.default"), "faster");
  EXPECT_EQ(compare_fixtures("faster", "baseline").exit_code, 1);
}

TEST(CompareCli, InconclusiveFailsOnlyWithStrict) {
  const CliRun r = compare_fixtures("baseline", "inconclusive");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "not significant")) << r.out;
  EXPECT_EQ(verdict_of(compare_json("baseline", "inconclusive"), "layer_norm_gelu_scale.default"),
            "inconclusive");
  EXPECT_EQ(compare_fixtures("baseline", "inconclusive", "--strict").exit_code, 4);
}

TEST(CompareCli, FailedNowIsARegression) {
  const CliRun r = compare_fixtures("baseline", "failed_now");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "failed_now (REGRESSION)")) << r.out;
  EXPECT_TRUE(contains(r.out, "elements outside atol")) << r.out;  // the candidate's reason
  // Even --allow-missing does not excuse a failure.
  EXPECT_EQ(compare_fixtures("baseline", "failed_now", "--allow-missing").exit_code, 1);
  EXPECT_EQ(verdict_of(compare_json("failed_now", "baseline"), "layer_norm.split_row"), "fixed");
}

TEST(CompareCli, MissingKernelIsARegressionUnlessAllowed) {
  const CliRun r = compare_fixtures("baseline", "missing_kernel");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "kernel missing from the candidate")) << r.out;
  EXPECT_EQ(compare_fixtures("baseline", "missing_kernel", "--allow-missing").exit_code, 0);
  // The other way round the kernel is new: reported, not a regression.
  const CliRun reverse = compare_fixtures("missing_kernel", "baseline");
  EXPECT_EQ(reverse.exit_code, 0) << reverse.out;
  EXPECT_EQ(
      verdict_of(compare_json("missing_kernel", "baseline"), "layer_norm_gelu_scale.warp_per_row"),
      "new");
}

TEST(CompareCli, DifferentDeviceOrConfigIsRefusedUnlessAllowed) {
  const CliRun device = compare_fixtures("baseline", "other_device");
  EXPECT_EQ(device.exit_code, 2);
  EXPECT_EQ(device.out, "");
  EXPECT_TRUE(contains(device.err, "different GPU models")) << device.err;
  EXPECT_TRUE(contains(device.err, "\"NVIDIA A100-SXM4-80GB\"")) << device.err;
  EXPECT_TRUE(contains(device.err, "--allow-mismatch")) << device.err;
  const CliRun config = compare_fixtures("baseline", "other_config");
  EXPECT_EQ(config.exit_code, 2);
  EXPECT_TRUE(contains(config.err, "different configs")) << config.err;
  EXPECT_TRUE(contains(config.err, "0123456789abcdef")) << config.err;

  const CliRun allowed = compare_fixtures("baseline", "other_device", "--allow-mismatch");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out << allowed.err;
  EXPECT_TRUE(contains(allowed.err, "warning: different GPU models")) << allowed.err;
  EXPECT_TRUE(contains(allowed.out, "WARNING")) << allowed.out;
}

TEST(CompareCli, UnreadableOrMalformedReportsExitTwoNamingTheFile) {
  const CliRun malformed = compare_fixtures("baseline", "malformed");
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_TRUE(contains(malformed.err, "malformed.json: not valid JSON")) << malformed.err;
  const CliRun schema = compare_fixtures("wrong_schema", "baseline");
  EXPECT_EQ(schema.exit_code, 2);
  EXPECT_TRUE(contains(schema.err,
                       "wrong_schema.json: /schema_version: schema_version 99 is not "
                       "supported; allowed: 1"))
      << schema.err;
  const CliRun key = compare_fixtures("baseline", "missing_key");
  EXPECT_EQ(key.exit_code, 2);
  EXPECT_TRUE(contains(key.err,
                       "missing_key.json: /problems/1/kernels/2: missing required field "
                       "\"status\""))
      << key.err;
  const CliRun absent = compare("'" + fixture("baseline") + "' /nonexistent/candidate.json");
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_TRUE(contains(absent.err, "/nonexistent/candidate.json: cannot read")) << absent.err;
}

TEST(CompareCli, BadUsageExitsTwo) {
  EXPECT_EQ(compare("'" + fixture("baseline") + "'").exit_code, 2);  // no candidate
  EXPECT_EQ(compare_fixtures("baseline", "identical", "--format html").exit_code, 2);
  EXPECT_EQ(compare_fixtures("baseline", "identical", "--alpha 2").exit_code, 2);
  EXPECT_EQ(compare_fixtures("baseline", "identical", "--json --format markdown").exit_code, 2);
}

TEST(CompareCli, MarkdownForPullRequests) {
  const CliRun r = compare_fixtures("baseline", "slower", "--format markdown");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.out, "### normbench compare: REGRESSION: 1 regression")) << r.out;
  EXPECT_TRUE(contains(r.out, "| problem | kernel | baseline ms | candidate ms |")) << r.out;
  EXPECT_TRUE(contains(r.out, "| `B_group_norm` | `group_norm.default` |")) << r.out;
  EXPECT_TRUE(contains(r.out, "**slower (REGRESSION)**")) << r.out;
  EXPECT_TRUE(contains(r.out, "<details>")) << r.out;
}

TEST(CompareCli, JsonIsTheSameWithFormatJson) {
  const CliRun a = compare_fixtures("baseline", "faster", "--json");
  const CliRun b = compare_fixtures("baseline", "faster", "--format json");
  EXPECT_EQ(a.out, b.out);
  const auto j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j["kind"], "normbench-compare");
  EXPECT_EQ(j["summary"]["kernels"], 14);
  EXPECT_EQ(j["summary"]["result"], "ok");
}

}  // namespace
