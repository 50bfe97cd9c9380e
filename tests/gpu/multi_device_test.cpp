// --devices and --shard end to end on whatever GPUs the machine has (one is enough): smoke.json
// run on one GPU, on every GPU (--devices all), and as two shards merged must give the same
// kernels with the same statuses, and `compare` must find no correctness regression between
// them (nor a slowdown past 50%: smoke's microsecond kernels are noisy across processes). The
// reports must name each kernel's GPU and list every GPU with its copy bandwidth.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cpu/test_support.hpp"
#include "tests/gpu/gpu_test_support.hpp"

namespace normbench {
namespace {

using nlohmann::json;

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

// Runs `normbench ARGS` in `dir`; returns the exit code (output to dir/log.txt, appended).
int normbench(const testing::TempDir& dir, const std::string& args) {
  const std::string command = "cd " + quoted(dir.path()) + " && " + quoted(NORMBENCH_BINARY) + " " +
                              args + " >>log.txt 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

json load(const testing::TempDir& dir, const std::string& name) {
  return json::parse(testing::read_text(dir.file(name)));
}

// "problem/kernel" -> status.
std::map<std::string, std::string> statuses(const json& report) {
  std::map<std::string, std::string> out;
  for (const json& p : report["problems"])
    for (const json& k : p["kernels"])
      out[p["id"].get<std::string>() + "/" + k["id"].get<std::string>()] = k["status"];
  return out;
}

TEST(MultiDevice, AllGpusAndMergedShardsGiveTheOneGpuRunsVerdicts) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  testing::TempDir dir;
  const std::string config = quoted(testing::source_path("configs/smoke.json"));
  const int one = normbench(dir, "run --config " + config + " --out one.json");
  ASSERT_TRUE(one == 0 || one == 1) << testing::read_text(dir.file("log.txt"));
  EXPECT_EQ(normbench(dir, "run --config " + config + " --devices all --out all.json"), one);
  const int first = normbench(dir, "run --config " + config + " --shard 1/2 --out s1.json");
  const int second = normbench(dir, "run --config " + config + " --shard 2/2 --out s2.json");
  ASSERT_TRUE((first == 0 || first == 1) && (second == 0 || second == 1));
  ASSERT_EQ(normbench(dir, "merge s2.json s1.json --out merged.json"), 0)
      << testing::read_text(dir.file("log.txt"));

  const json single = load(dir, "one.json"), all = load(dir, "all.json"),
             merged = load(dir, "merged.json");
  EXPECT_EQ(statuses(all), statuses(single));
  EXPECT_EQ(statuses(merged), statuses(single));
  EXPECT_EQ(merged["exit_code"], single["exit_code"]);
  // compare accepts the reports as one config on one GPU model and finds no kernel that
  // passed before failing now. Its speed verdict needs a wider margin here than its 5%: smoke's
  // kernels take 10-20 us, and between processes they moved by up to 11% on the H100
  // (two_phase on ln_short_rows: 0.0149 vs 0.0161 ms); the timing of --devices is judged on
  // the shipped configs' full-size problems (README, scale out).
  EXPECT_EQ(normbench(dir, "compare one.json all.json --max-slowdown 0.5"), 0)
      << testing::read_text(dir.file("log.txt"));
  EXPECT_EQ(normbench(dir, "compare one.json merged.json --max-slowdown 0.5"), 0)
      << testing::read_text(dir.file("log.txt"));

  // Every GPU with its own copy bandwidth and latency floor; every kernel on one of them.
  ASSERT_GE(all["devices"].size(), 1u);
  EXPECT_EQ(all["devices"][0]["name"], all["device"]["name"]);
  for (const json& d : all["devices"]) {
    EXPECT_GT(d["copy_bandwidth"]["gb_per_s"], 0.0);
    EXPECT_GT(d["latency_floor"]["cold_ms"], 0.0);
  }
  for (const json& p : all["problems"])
    for (const json& k : p["kernels"]) {
      ASSERT_TRUE(k["device"].is_number_integer()) << p["id"] << " " << k["id"];
      bool listed = false;
      for (const json& d : all["devices"]) listed = listed || d["index"] == k["device"];
      EXPECT_TRUE(listed) << k["device"];
    }
  EXPECT_EQ(merged["merged"]["shards"], 2);
  EXPECT_EQ(normbench(dir, "report merged.json --out merged.xml"), 0);
}

}  // namespace
}  // namespace normbench
