// The untrusted-kernels defences end to end: normbench with the deliberately wrong kernels of
// tests/adversarial added runs tests/adversarial/adversarial.json once, as a user would, and
// every wrong kernel must end with the status and reason that name what it did, while every
// shipped kernel in the same run keeps its result and the run finishes.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/gpu/gpu_test_support.hpp"

namespace normbench {
namespace {

using nlohmann::json;

struct Expected {
  const char* status;
  const char* reason;  // a part of the reason
  std::vector<const char*> problems;
};

const char* const kLayerNormProblems[] = {"rows", "offset_rows", "short_rows"};
// Every row problem of the float32 LayerNorm ops, the few-microsecond one included.
const std::vector<const char*> kAllRows = {"rows", "tiny_rows", "offset_rows", "short_rows",
                                           "gelu_rows"};

// What each wrong kernel (named without its op prefix) must end as, and on which problems.
// Numeric mistakes are required to fail only where the data can tell them apart at the
// tolerance: eps and n - 1 vanish against large variances and long rows.
const std::map<std::string, Expected>& expectations() {
  static const std::map<std::string, Expected> e = {
      {"lazy", {"failed", "timed sample", {"rows", "offset_rows", "short_rows", "gelu_rows"}}},
      // Every timed sample of a kernel that is not bitwise deterministic is checked against the
      // reference's bounds, not only two of them.
      {"noisy_lazy",
       {"failed", "outside their tolerance (the first at index 0), checked on the device",
        kAllRows}},
      // Every device operation accounted for, whatever its length.
      {"own_stream", {"failed", "ran 1 kernel on another stream: ", kAllRows}},
      {"legacy_stream", {"failed", "ran 1 kernel on the legacy default stream: ", kAllRows}},
      {"per_thread_stream",
       {"failed", "ran 1 kernel on the per-thread default stream: ", kAllRows}},
      {"late_thread", {"failed", "enqueued outside its launch call", kAllRows}},
      {"replay_by_address", {"failed", "belongs to other inputs", kAllRows}},
      // It computes every fourth launch, so a timed sample that did not get fresh inputs may
      // already show another output than the verified one: which of the two checks of a
      // timed sample's output sees the replay first depends on where the fresh inputs fell.
      {"replay_by_count", {"failed", "the output of timed sample ", kAllRows}},
      {"fork_join", {"passed", "", kAllRows}},
      {"writes_after_y",
       {"failed",
        "wrote outside its output: 4 bytes after it",
        {"rows", "offset_rows", "short_rows", "gelu_rows", "groups"}}},
      {"writes_before_y",
       {"failed",
        "wrote outside its output: 4 bytes before it",
        {"rows", "offset_rows", "short_rows", "gelu_rows"}}},
      {"illegal_address",
       {"error", "illegal memory access", {"rows", "offset_rows", "short_rows", "groups"}}},
      {"trap",
       {"error", "failed on the device", {"rows", "offset_rows", "short_rows", "gelu_rows"}}},
      {"endless", {"error", "timed out", {"rows", "offset_rows", "short_rows"}}},
      {"host_crash", {"error", "crashed: SIG", {"rows", "offset_rows", "short_rows"}}},
      {"plan_crash",
       {"error", "while planning: crashed: SIG", {"rows", "offset_rows", "short_rows"}}},
      {"input_change",
       {"failed", "modified its inputs", {"rows", "offset_rows", "short_rows", "gelu_rows"}}},
      {"no_eps", {"failed", "elements outside", {"rows", "short_rows", "gelu_rows"}}},
      {"unbiased_variance", {"failed", "elements outside", {"short_rows", "gelu_rows"}}},
      {"float_moments", {"failed", "elements outside", {"offset_rows"}}},
      {"wrong_weight",
       {"failed", "elements outside", {"rows", "offset_rows", "short_rows", "gelu_rows"}}},
      {"skip_last_row", {"failed", "NaN/Inf", {"rows", "offset_rows", "short_rows", "gelu_rows"}}},
      {"fp16_output",
       {"failed", "elements outside", {"rows", "offset_rows", "short_rows", "gelu_rows"}}},
      {"tanh_gelu", {"failed", "elements outside", {"gelu_rows"}}},
      {"no_scale", {"failed", "elements outside", {"gelu_rows"}}},
      // Declines the float32 problems; fails the bfloat16 tolerance on long bf16 rows.
      {"bf16_statistics", {"failed", "elements outside", {"bf16_rows", "bf16_rms_rows"}}},
      {"writes_after_s",
       {"failed", "wrote outside its output s: 2 bytes after it", {"bf16_add_rms_rows"}}},
      {"s_elsewhere", {"failed", "s: 4194304 of 4194304 elements outside", {"bf16_add_rms_rows"}}},
      // The backward ops' own outputs and inputs
      // (tests/adversarial/backward_adversarial_kernels.cu).
      {"bf16_dweight_sum", {"failed", "dweight: ", {"bf16_backward_rows"}}},
      {"writes_after_dweight",
       {"failed",
        "wrote outside its output dweight: 4 bytes after it",
        {"backward_rows", "bf16_backward_rows"}}},
      {"changes_dy", {"failed", "modified its inputs", {"backward_rows", "bf16_backward_rows"}}},
      {"changes_rstd", {"failed", "modified its inputs", {"backward_rows", "bf16_backward_rows"}}},
      {"dx_only",
       {"failed",
        "dweight: 1024 of 1024 elements outside |dweight - ref| <= 1e-05 + 1e-05 * |ref| + 8 "
        "sqrt(M) "
        "u32 S (M = 512 terms, S = sum of their magnitudes) (1024 NaN/Inf)",
        {"backward_rows"}}},
      // ds_out, of N(0, 1), is far beyond dx's tolerance almost everywhere.
      {"without_ds_out", {"failed", "dx: ", {"add_rms_backward_rows"}}},
      {"changes_ds_out", {"failed", "modified its inputs", {"add_rms_backward_rows"}}},
  };
  return e;
}

struct AdversarialRun {
  int exit_code = -1;
  json report;
  std::string output;
};

const AdversarialRun& adversarial_run() {
  static const AdversarialRun run = [] {
    AdversarialRun r;
    const std::string out = ::testing::TempDir() + "normbench-adversarial.json";
    const std::string command = std::string("'") + NORMBENCH_ADVERSARIAL_BINARY +
                                "' run --config '" + NORMBENCH_SOURCE_DIR +
                                "/tests/adversarial/adversarial.json' --out '" + out + "' 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    char buffer[4096];
    for (size_t n; pipe && (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
      r.output.append(buffer, n);
    const int status = pipe ? ::pclose(pipe) : -1;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    FILE* file = std::fopen(out.c_str(), "rb");
    if (file) {
      std::string text;
      while (size_t n = std::fread(buffer, 1, sizeof buffer, file)) text.append(buffer, n);
      std::fclose(file);
      r.report = json::parse(text, nullptr, false);
    }
    return r;
  }();
  return run;
}

const json* kernel_in(const json& report, const std::string& problem, const std::string& id) {
  for (const json& p : report["problems"])
    if (p["id"] == problem)
      for (const json& k : p["kernels"])
        if (k["id"] == id) return &k;
  return nullptr;
}

std::string adversarial_name(const std::string& id) {
  const std::string marker = ".adversarial_";
  const size_t at = id.find(marker);
  return at == std::string::npos ? "" : id.substr(at + marker.size());
}

TEST(Adversarial, TheRunFinishesWithEveryResultRecorded) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const AdversarialRun& run = adversarial_run();
  ASSERT_TRUE(run.report.is_object()) << run.output;
  EXPECT_EQ(run.exit_code, 1) << run.output;  // kernels failed; nothing aborted the run
  EXPECT_TRUE(run.report["aborted"].is_null()) << run.report["aborted"];
  EXPECT_EQ(run.report["summary"]["not_run"], 0);
}

TEST(Adversarial, ShippedKernelsKeepTheirResults) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const AdversarialRun& run = adversarial_run();
  ASSERT_TRUE(run.report.is_object()) << run.output;
  int shipped = 0;
  for (const json& p : run.report["problems"])
    for (const json& k : p["kernels"]) {
      const std::string id = k["id"];
      if (!adversarial_name(id).empty()) continue;
      ++shipped;
      const std::string status = k["status"];
      EXPECT_TRUE(status == "passed" || status == "not_supported")
          << p["id"] << " " << id << ": " << status << ": " << k["reason"];
      if (status == "passed") {
        EXPECT_TRUE(k["timing"].is_object()) << p["id"] << " " << id;
      }
    }
  EXPECT_GT(shipped, 20);
}

TEST(Adversarial, EveryWrongKernelIsNamedForWhatItDid) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const AdversarialRun& run = adversarial_run();
  ASSERT_TRUE(run.report.is_object()) << run.output;
  std::set<std::string> seen;
  for (const json& p : run.report["problems"])
    for (const json& k : p["kernels"]) {
      const std::string name = adversarial_name(k["id"]);
      if (name.empty()) continue;
      seen.insert(name);
      // Whatever the problem, a wrong kernel is never timed as if it passed.
      if (k["status"] != "passed") {
        EXPECT_TRUE(k["timing"].is_null()) << k["id"];
      }
      const auto e = expectations().find(name);
      ASSERT_NE(e, expectations().end()) << "no expectation for " << name;
      bool required = false;
      for (const char* problem : e->second.problems) required = required || p["id"] == problem;
      if (!required) continue;
      const std::string where = p["id"].get<std::string>() + " " + k["id"].get<std::string>();
      EXPECT_EQ(k["status"], e->second.status) << where << ": " << k["reason"];
      const std::string reason = k["reason"].is_string() ? k["reason"].get<std::string>() : "";
      EXPECT_NE(reason.find(e->second.reason), std::string::npos)
          << where << ": reason \"" << reason << "\" lacks \"" << e->second.reason << "\"";
    }
  for (const auto& [name, expected] : expectations()) EXPECT_TRUE(seen.count(name)) << name;
  for (const char* problem : kLayerNormProblems)
    EXPECT_NE(kernel_in(run.report, problem, "layer_norm.adversarial_endless"), nullptr);
}

}  // namespace
}  // namespace normbench
