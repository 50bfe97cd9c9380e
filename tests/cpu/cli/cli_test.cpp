// The normbench binary without a GPU: help, version, list, and every way `run` must refuse
// (exit 2 for usage and config errors, exit 3 for no GPU) without writing a report.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/util/version.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using testing::TempDir;

struct Outcome {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

// Runs `normbench <args>` in `cwd`, so that a default-named report would land there.
Outcome run_normbench(const std::string& args, const std::string& cwd) {
  const std::string command =
      "cd " + quoted(cwd) + " && " + quoted(NORMBENCH_BINARY) + " " + args + " 2>&1";
  Outcome outcome;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return outcome;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    outcome.output.append(buffer, n);
  const int status = ::pclose(pipe);
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return outcome;
}

using testing::contains;

class Cli : public ::testing::Test {
 protected:
  Outcome run(const std::string& args) { return run_normbench(args, dir_.path()); }
  TempDir dir_;
};

TEST_F(Cli, Version) {
  const Outcome o = run("--version");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, std::string("normbench ") + version())) << o.output;
}

TEST_F(Cli, Help) {
  const Outcome top = run("--help");
  EXPECT_EQ(top.exit_code, 0) << top.output;
  EXPECT_TRUE(contains(top.output, "run")) << top.output;
  EXPECT_TRUE(contains(top.output, "list")) << top.output;
  const Outcome sub = run("run --help");
  EXPECT_EQ(sub.exit_code, 0) << sub.output;
  EXPECT_TRUE(contains(sub.output, "--config")) << sub.output;
  EXPECT_TRUE(contains(sub.output, "--trials")) << sub.output;
}

TEST_F(Cli, NoOrUnknownSubcommandIsUsageError) {
  EXPECT_EQ(run("").exit_code, 2);
  EXPECT_EQ(run("frobnicate").exit_code, 2);
  EXPECT_EQ(run("run --no-such-flag").exit_code, 2);
}

TEST_F(Cli, List) {
  const Outcome o = run("list");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  for (const char* text :
       {"layer_norm:", "group_norm:", "layer_norm_gelu_scale:", "layer_norm.naive",
        "group_norm.naive", "layer_norm_gelu_scale.naive", "[baseline]"})
    EXPECT_TRUE(contains(o.output, text)) << "missing " << text << " in:\n" << o.output;
}

TEST_F(Cli, ListJson) {
  const Outcome o = run("list --json");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const nlohmann::json j = nlohmann::json::parse(o.output);
  const auto& ops = j.at("ops");
  const char* names[] = {
      "layer_norm",        "group_norm",          "layer_norm_gelu_scale", "rms_norm",
      "add_rms_norm",      "channel_rms_norm",    "group_norm_silu",       "layer_norm_backward",
      "rms_norm_backward", "group_norm_backward", "add_rms_norm_backward"};
  ASSERT_EQ(ops.size(), std::size(names));
  for (size_t i = 0; i < std::size(names); ++i) {
    const std::string op = names[i];
    EXPECT_EQ(ops[i].at("op"), op);
    bool has_naive_baseline = false;
    for (const auto& k : ops[i].at("kernels")) {
      const auto id = k.at("id").get<std::string>();
      EXPECT_EQ(id.rfind(op + ".", 0), 0u) << id << " listed under " << op;
      has_naive_baseline =
          has_naive_baseline || (id == op + ".naive" && k.at("is_baseline") == true);
    }
    EXPECT_TRUE(has_naive_baseline) << op;
  }
}

TEST_F(Cli, BadConfigIsUsageErrorNamingFileAndPath) {
  const std::string config = dir_.file("bad.json");
  testing::write_text(config, R"({"name": "bad", "problems": [
      {"id": "gn", "op": "group_norm", "shape": [2, 6, 3], "groups": 4}]})");
  const Outcome o = run("run --config bad.json --out out/report.json");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "bad.json: /problems/0/groups:")) << o.output;
  EXPECT_TRUE(contains(o.output, "allowed: a divisor of 6")) << o.output;
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"bad.json"});  // no report, no folder
}

TEST_F(Cli, ConfigThatIsNotJson) {
  testing::write_text(dir_.file("broken.json"), "{\"name\": ");
  const Outcome o = run("run --config broken.json");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "broken.json: not valid JSON")) << o.output;
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"broken.json"});
}

TEST_F(Cli, MissingConfigFile) {
  const Outcome o = run("run --config missing.json");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "missing.json")) << o.output;
  EXPECT_TRUE(dir_.entries().empty());
}

TEST_F(Cli, UnknownProblemNamesTheAllowedIds) {
  const Outcome o = run("run --problem nope --out report.json");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "--problem nope")) << o.output;
  EXPECT_TRUE(contains(o.output, "allowed: A_layer_norm, B_group_norm, C_layer_norm_gelu_scale"))
      << o.output;
  EXPECT_TRUE(dir_.entries().empty());
}

TEST_F(Cli, UnknownKernel) {
  const Outcome o = run("run --kernel nope --out report.json");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "--kernel nope")) << o.output;
  EXPECT_TRUE(contains(o.output, "layer_norm.naive")) << o.output;  // in the allowed list
  EXPECT_TRUE(dir_.entries().empty());
}

TEST_F(Cli, TrialsZero) {
  const Outcome o = run("run --trials 0 --out report.json");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "--trials")) << o.output;
  EXPECT_TRUE(dir_.entries().empty());
}

TEST_F(Cli, ReportPathThatIsADirectoryFailsBeforeTheRun) {
  std::filesystem::create_directory(dir_.file("reports"));
  const Outcome o = run("run --out reports");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "reports: is a directory")) << o.output;
}

// Hostile inputs, each of which once ended in a crash, an internal error or a lost config.
TEST_F(Cli, DeeplyNestedConfigIsAUsageErrorNotACrash) {
  testing::write_text(dir_.file("deep.json"), std::string(100000, '['));
  const Outcome o = run("run --config deep.json --out r.json");
  EXPECT_EQ(o.exit_code, 2) << o.output.substr(0, 300);
  EXPECT_TRUE(contains(o.output, "deep.json: /0/0/")) << o.output.substr(0, 300);
  EXPECT_TRUE(contains(o.output, "nested deeper than 64 levels")) << o.output.substr(0, 300);
}

TEST_F(Cli, NumberOutOfRangeNamesItsPath) {
  testing::write_text(dir_.file("eps.json"), R"({"name": "e", "problems": [{"id": "a",
      "op": "layer_norm", "shape": [4], "normalized_shape": [4], "eps": 1e400}]})");
  const Outcome o = run("run --config eps.json --out r.json");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "eps.json: /problems/0/eps: the number 1e400 is out of range"))
      << o.output;
  EXPECT_FALSE(contains(o.output, "internal error")) << o.output;
}

TEST_F(Cli, SeedThatIsNotAnUnsignedInteger) {
  for (const char* seed : {"abc", "-1", "1.5", "18446744073709551616"}) {
    const Outcome o = run(std::string("run --seed ") + seed + " --out r.json");
    EXPECT_EQ(o.exit_code, 2) << o.output;
    EXPECT_TRUE(contains(o.output, std::string("--seed ") + seed + ": ")) << o.output;
    EXPECT_TRUE(
        contains(o.output, "allowed: an unsigned 64-bit integer, 0 to 18446744073709551615"))
        << o.output;
    EXPECT_LT(o.output.size(), 400u) << o.output;
  }
  EXPECT_TRUE(dir_.entries().empty());
}

TEST_F(Cli, ConfigThatIsADirectory) {
  std::filesystem::create_directory(dir_.file("configs"));
  const Outcome o = run("run --config configs --out r.json");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "configs: cannot read the config: it is a directory")) << o.output;
}

TEST_F(Cli, OutThatIsTheConfigIsRefusedBeforeTheRun) {
  const std::string config = R"({"name": "c", "problems": [{"id": "a", "op": "layer_norm",
      "shape": [4], "normalized_shape": [4]}]})";
  testing::write_text(dir_.file("c.json"), config);
  for (const char* out : {"c.json", "./sub/../c.json"}) {
    std::filesystem::create_directory(dir_.file("sub"));
    const Outcome o = run(std::string("run --config c.json --out ") + out);
    EXPECT_EQ(o.exit_code, 2) << o.output;  // 2, not 3: refused before looking for a GPU
    EXPECT_TRUE(contains(o.output, std::string("--out ") + out + ": is the input file c.json"))
        << o.output;
    EXPECT_EQ(testing::read_text(dir_.file("c.json")), config);
  }
  // The default report name is an input too when the config is called so.
  testing::write_text(dir_.file("normbench-c.json"), config);
  const Outcome o = run("run --config normbench-c.json");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_EQ(testing::read_text(dir_.file("normbench-c.json")), config);
}

TEST_F(Cli, DevicesAndShardAreCheckedBeforeLookingForAGpu) {
  struct Case {
    std::string args;
    std::string message;
  };
  const Case cases[] = {
      {"--devices 0,0", "--devices 0,0: device 0 is named twice"},
      {"--devices x", "--devices x: \"x\" is not a device index"},
      {"--devices 0,", "--devices 0,: an empty item"},
      {"--devices -1", ""},
      {"--devices ''", "--devices"},
      {"--device 1 --devices 0,1", "excludes"},
      {"--shard 0/2", "--shard 0/2: K and N must be integers"},
      {"--shard 3/2", "--shard 3/2: K is larger than N"},
      {"--shard 1", "--shard 1: expected K/N"},
      {"--shard ''", "--shard"},
  };
  for (const Case& c : cases) {
    const Outcome o = run("run --no-timing --out r.json " + c.args);
    EXPECT_EQ(o.exit_code, 2) << c.args << "\n" << o.output;
    EXPECT_TRUE(contains(o.output, c.message)) << c.args << "\n" << o.output;
    EXPECT_FALSE(std::filesystem::exists(dir_.file("r.json")));
  }
}

bool gpu_present() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

// The documented "nothing written" holds for the folders of --out too: the writability check
// made them before the later checks refused the run.
TEST_F(Cli, ARefusedRunLeavesNoFolderBehind) {
  const std::string smoke = testing::source_path("configs/smoke.json");
  const Outcome o =
      run("run --config " + quoted(smoke) + " --save-tensors /proc/x --out new/r.json");
  EXPECT_EQ(o.exit_code, 2) << o.output;
  EXPECT_TRUE(contains(o.output, "--save-tensors /proc/x: cannot write there")) << o.output;
  EXPECT_TRUE(dir_.entries().empty());
  if (gpu_present()) return;
  const Outcome no_gpu = run("run --config " + quoted(smoke) + " --out new/deeper/r.json");
  EXPECT_EQ(no_gpu.exit_code, 3) << no_gpu.output;
  EXPECT_TRUE(dir_.entries().empty());
}

TEST_F(Cli, RunWithoutGpuExits3AndWritesNoReport) {
  if (gpu_present()) GTEST_SKIP() << "a CUDA GPU is present; this test is for machines without one";
  const std::string smoke = testing::source_path("configs/smoke.json");
  const Outcome o = run("run --config " + quoted(smoke) + " --out reports/smoke.json");
  EXPECT_EQ(o.exit_code, 3) << o.output;
  EXPECT_TRUE(contains(o.output, "no CUDA GPU is available")) << o.output;
  EXPECT_FALSE(std::filesystem::exists(dir_.file("reports/smoke.json")));
  for (const auto& name : dir_.entries()) EXPECT_EQ(name.find(".tmp."), std::string::npos) << name;

  // Valid --devices and --shard get as far as looking for a GPU.
  for (const std::string args : {"--devices all", "--devices 0,1", "--shard 1/2"}) {
    const Outcome multi = run("run --config " + quoted(smoke) + " --out r.json " + args);
    EXPECT_EQ(multi.exit_code, 3) << args << "\n" << multi.output;
    EXPECT_TRUE(contains(multi.output, "no CUDA GPU is available")) << multi.output;
    EXPECT_FALSE(std::filesystem::exists(dir_.file("r.json")));
  }

  // The default report name, normbench-<config name>.json in the working folder, neither.
  const Outcome builtin = run("run --no-timing");
  EXPECT_EQ(builtin.exit_code, 3) << builtin.output;
  EXPECT_FALSE(std::filesystem::exists(dir_.file("normbench-kernelbench.json")));
}

}  // namespace
}  // namespace normbench
