// The one reader of run reports, which `normbench compare` and `normbench report` share: what
// it reads from real reports, what it refuses, and the messages it refuses with.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "app/results/report_reader.hpp"
#include "app/util/errors.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using nlohmann::json;
using testing::source_path;

json minimal_report() {
  return json::parse(R"({
    "schema_version": 1, "tool": {"name": "t"}, "device": {"name": "GPU X"},
    "config": {"name": "cfg", "hash": "h1"},
    "problems": [{"id": "P", "op": "layer_norm", "shape": [4, 8], "kernels": [
      {"id": "a", "status": "passed", "reason": null,
       "timing": {"median_ms": 1.5, "samples_ms": [1.0, 2.0]}},
      {"id": "b", "status": "not_supported", "reason": "too long", "timing": null}]}]})");
}

// The UsageError message of reading `doc`, or "(no error)".
std::string read_error(const json& doc) {
  try {
    read_report_json(doc, "r.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ReportReader, ReadsTheH100Fixture) {
  const std::string path = source_path("tests/fixtures/h100_kernelbench_v1.json");
  const LoadedReport r = read_report_file(path);
  EXPECT_EQ(r.header.device_name, "NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(r.header.copy_gb_per_s);
  EXPECT_NEAR(*r.header.copy_gb_per_s, 3034.8, 0.1);
  EXPECT_EQ(r.header.config_name, "kernelbench");
  EXPECT_EQ(r.header.tool_name, "normbench");
  ASSERT_EQ(r.problems.size(), 3u);
  const LoadedProblem& a = r.problems[0];
  EXPECT_EQ(a.id, "A_layer_norm");
  ASSERT_EQ(a.kernels.size(), 5u);
  EXPECT_TRUE(a.kernels[0].is_baseline);
  ASSERT_TRUE(a.kernels[0].timing);
  const json doc = json::parse(testing::read_text(path));
  EXPECT_DOUBLE_EQ(a.kernels[0].timing->median_ms,
                   doc["problems"][0]["kernels"][0]["timing"]["median_ms"].get<double>());
  EXPECT_EQ(a.kernels[0].timing->samples_ms.size(),
            doc["problems"][0]["kernels"][0]["timing"]["samples_ms"].size());
  EXPECT_EQ(a.kernels[4].status, KernelStatus::not_supported);
  EXPECT_FALSE(a.kernels[4].timing);
}

TEST(ReportReader, ReadsTheMinimalReport) {
  const LoadedReport r = read_report_json(minimal_report(), "r.json");
  EXPECT_EQ(r.header.config_hash, "h1");
  const auto& kernels = r.problems[0].kernels;
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].timing->samples_ms, (std::vector<double>{1.0, 2.0}));
  EXPECT_DOUBLE_EQ(kernels[0].timing->mean_ms, 1.5);  // derived when the report leaves it out
  EXPECT_FALSE(kernels[1].timing);
  EXPECT_EQ(kernels[1].reason, "too long");
  auto no_device = minimal_report();
  no_device["device"] = nullptr;
  EXPECT_EQ(read_report_json(no_device, "r.json").header.device_name, "");
}

TEST(ReportReader, AKernelThatDidNotPassHasNoTiming) {
  auto doc = minimal_report();
  doc["problems"][0]["kernels"][0]["status"] = "failed";
  doc["problems"][0]["kernels"][0]["bandwidth"] = {{"gb_per_s", 1.0}};
  const LoadedReport report = read_report_json(doc, "r.json");
  const LoadedKernel& k = report.problems[0].kernels[0];
  EXPECT_FALSE(k.timing);
  EXPECT_FALSE(k.gb_per_s);
}

TEST(ReportReader, NamesTheFileThePathAndWhatIsWrong) {
  auto doc = minimal_report();
  doc["schema_version"] = 99;
  EXPECT_EQ(read_error(doc),
            "r.json: /schema_version: schema_version 99 is not supported; allowed: 1 to 2");
  doc["schema_version"] = 2.0;
  EXPECT_EQ(read_error(doc),
            "r.json: /schema_version: expected an integer schema_version, got 2.0; allowed: 1 "
            "to 2");
  doc = minimal_report();
  doc["problems"][0]["kernels"][1].erase("status");
  EXPECT_EQ(read_error(doc), "r.json: /problems/0/kernels/1: missing required field \"status\"");
  doc = minimal_report();
  doc["problems"][0]["kernels"][0]["status"] = "great";
  EXPECT_EQ(read_error(doc),
            "r.json: /problems/0/kernels/0/status: unknown status \"great\"; allowed: passed, "
            "failed, not_supported, error, skipped, not_run");
  doc = minimal_report();
  doc["problems"][0]["kernels"][1]["id"] = "a";
  EXPECT_EQ(read_error(doc), "r.json: /problems/0/kernels/1/id: duplicate kernel id \"a\"");
  doc = minimal_report();
  doc["problems"].push_back(doc["problems"][0]);
  EXPECT_EQ(read_error(doc), "r.json: /problems/1/id: duplicate problem id \"P\"");
  doc = minimal_report();
  doc["problems"][0]["kernels"][0]["timing"]["samples_ms"][1] = -1.0;
  EXPECT_NE(read_error(doc).find("r.json: /problems/0/kernels/0/timing/samples_ms/1: "),
            std::string::npos);
  doc = minimal_report();
  doc["problems"][0]["kernels"][0]["timing"]["median_ms"] = 1.0;
  EXPECT_NE(read_error(doc).find("/timing/median_ms: is not the median of samples_ms"),
            std::string::npos)
      << read_error(doc);
  doc = minimal_report();
  doc["config"].erase("hash");
  EXPECT_EQ(read_error(doc), "r.json: /config: missing required field \"hash\"");
  doc = minimal_report();
  doc["problems"][0].erase("kernels");
  EXPECT_EQ(read_error(doc), "r.json: /problems/0: missing required field \"kernels\"");
  EXPECT_NE(read_error(json::array()).find("r.json: /: expected a normbench report"),
            std::string::npos);
}

// The count of throttled samples decides compare's "throttled" verdicts: a sample listed twice
// (or 100 times) must not count again.
TEST(ReportReader, AThrottledSampleListedTwiceIsRefused) {
  auto doc = minimal_report();
  doc["problems"][0]["kernels"][0]["timing"]["conditions"] = {{"before", nullptr},
                                                              {"after", nullptr},
                                                              {"throttled_samples", {0, 0}},
                                                              {"throttle_reasons", "x"}};
  EXPECT_EQ(read_error(doc),
            "r.json: /problems/0/kernels/0/timing/conditions/throttled_samples/1: sample 0 is "
            "listed twice; allowed: each sample once");
  doc["problems"][0]["kernels"][0]["timing"]["conditions"]["throttled_samples"] = {1, 2};
  EXPECT_EQ(read_error(doc),
            "r.json: /problems/0/kernels/0/timing/conditions/throttled_samples/1: is not a sample "
            "of this timing; allowed: 0 to 1");
  doc["problems"][0]["kernels"][0]["timing"]["conditions"]["throttled_samples"] = {1, 0};
  EXPECT_EQ(read_report_json(doc, "r.json").problems[0].kernels[0].timing->throttled_samples, 2u);
}

// A problem's bytes over a copy bandwidth of 5e-324 GB/s gave an infinite floor in the report.
TEST(ReportReader, ACopyBandwidthNoDeviceHasIsRefused) {
  auto doc = minimal_report();
  doc["copy_bandwidth"] = {{"gb_per_s", 5e-324}};
  EXPECT_EQ(read_error(doc),
            "r.json: /copy_bandwidth/gb_per_s: 5e-324 is out of range; allowed: a number > 0.001 "
            "and <= 1000000.0");
  doc["copy_bandwidth"] = {{"gb_per_s", 3031.5}};
  EXPECT_EQ(read_report_json(doc, "r.json").header.copy_gb_per_s, 3031.5);
}

// Against a baseline of zeros no slowdown has a ratio, and compare passed a 2x slowdown with
// exit 0; a kernel whose outputs failed cannot have passed.
TEST(ReportReader, ZeroTimesAndAPassedKernelThatFailedVerificationAreRefused) {
  auto doc = minimal_report();
  doc["problems"][0]["kernels"][0]["timing"] = {{"median_ms", 0.0}, {"samples_ms", {0.0, 0.0}}};
  EXPECT_EQ(read_error(doc),
            "r.json: /problems/0/kernels/0/timing/samples_ms/0: 0.0 is out of range; allowed: a "
            "number > 0.0");
  doc = minimal_report();
  doc["problems"][0]["kernels"][0]["verification"] = {{"passed", false}};
  EXPECT_EQ(read_error(doc),
            "r.json: /problems/0/kernels/0/verification/passed: is false for a passed kernel; "
            "allowed: true where status is passed");
  doc["problems"][0]["kernels"][0]["status"] = "failed";
  EXPECT_FALSE(*read_report_json(doc, "r.json").problems[0].kernels[0].verified);
}

// Samples near DBL_MAX: their median is computed without overflowing to inf.
TEST(ReportReader, TheMedianOfHugeSamplesIsFinite) {
  auto doc = minimal_report();
  doc["problems"][0]["kernels"][0]["timing"] = {{"median_ms", 1.6e308},
                                                {"samples_ms", {1.5e308, 1.7e308}}};
  EXPECT_EQ(read_report_json(doc, "r.json").problems[0].kernels[0].timing->median_ms, 1.6e308);
}

// What merge and compare compute with must have the types the writers write: a numeric or null
// status, or a null is_baseline, ended `merge` in an internal error.
TEST(ReportReader, StatusAndBaselineFlagMustHaveTheirTypes) {
  auto doc = minimal_report();
  doc["problems"][0]["status"] = 3;
  EXPECT_EQ(read_error(doc), "r.json: /problems/0/status: expected a string, got 3");
  doc["problems"][0]["status"] = nullptr;
  EXPECT_EQ(read_error(doc), "r.json: /problems/0/status: expected a string, got null");
  doc["problems"][0]["status"] = "maybe";
  EXPECT_EQ(read_error(doc),
            "r.json: /problems/0/status: unknown problem status \"maybe\"; allowed: ran, skipped");
  doc["problems"][0]["status"] = "skipped";
  // A skipped problem set nothing up: a kernel of it that passed contradicts the report.
  EXPECT_EQ(read_error(doc),
            "r.json: /problems/0/kernels/0/status: is passed in a skipped problem; allowed "
            "there: error, not_supported, skipped, not_run");
  doc["problems"][0]["kernels"][0]["status"] = "skipped";
  doc["problems"][0]["kernels"][0]["timing"] = nullptr;
  EXPECT_TRUE(read_report_json(doc, "r.json").problems[0].skipped);
  doc = minimal_report();
  doc["problems"][0]["kernels"][0]["is_baseline"] = nullptr;
  EXPECT_EQ(read_error(doc),
            "r.json: /problems/0/kernels/0/is_baseline: expected true or false, got null");
}

// The tables (op, shape) and the config of a problem must describe the same problem.
TEST(ReportReader, AProblemThatContradictsItsConfigIsRefused) {
  auto doc = minimal_report();
  doc["config"]["resolved"] = {{"name", "cfg"},
                               {"problems",
                                {{{"id", "P"}, {"op", "layer_norm"}, {"shape", {4, 8}}},
                                 {{"id", "Q"}, {"op", "rms_norm"}, {"shape", {2}}}}}};
  EXPECT_EQ(read_error(doc), "(no error)");
  doc["problems"][0]["shape"] = {4, 16};
  EXPECT_EQ(read_error(doc),
            "r.json: /problems/0/shape: [4,16] differs from /config/resolved/problems/0/shape "
            "[4,8]; allowed: the problem's own, in its resolved config");
  doc["problems"][0]["shape"] = {4, 8};
  doc["problems"][0]["op"] = "group_norm";
  EXPECT_EQ(read_error(doc),
            "r.json: /problems/0/op: \"group_norm\" differs from /config/resolved/problems/0/op "
            "\"layer_norm\"; allowed: the problem's own, in its resolved config");
  doc = minimal_report();
  doc["problems"][0]["config"] = {{"id", "P"}, {"op", "layer_norm"}, {"shape", {8, 4}}};
  EXPECT_EQ(read_error(doc),
            "r.json: /problems/0/shape: [4,8] differs from /problems/0/config/shape [8,4]; "
            "allowed: the problem's own, in its resolved config");
}

TEST(ReportReader, LongTextIsShortenedInMessages) {
  auto doc = minimal_report();
  doc["problems"][0]["kernels"][0]["status"] = std::string(20000000, 's');
  const std::string message = read_error(doc);
  EXPECT_LT(message.size(), 500u) << message.substr(0, 500);
  EXPECT_NE(message.find("... (20000000 bytes in all)\"; allowed: passed"), std::string::npos)
      << message.substr(0, 500);
}

TEST(ReportReader, UnreadableFilesNameTheFileAndWhy) {
  try {
    read_report_file("/nonexistent/dir/report.json");
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/dir/report.json: cannot read the report: No such file or directory");
  }
  try {
    read_report_file(source_path("tests"));
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read the report: it is a directory"),
              std::string::npos);
  }
  try {
    read_report_file(source_path("tests/fixtures/compare/malformed.json"));
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("malformed.json: not valid JSON"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace normbench
