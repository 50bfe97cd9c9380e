// `normbench merge` on the fixtures of tests/fixtures/merge (made by its make_fixtures.py from
// the real H100 run): two shards give back the unsharded run's kernels, verdicts and medians,
// in plan order, with speedups over a baseline that ran in the other shard; every bad
// combination is refused naming the files.
#include <gtest/gtest.h>

#include <filesystem>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/results/merge_shards.hpp"
#include "app/util/errors.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using nlohmann::json;

std::string fixture(const std::string& name) {
  return testing::source_path("tests/fixtures/merge/" + name);
}

ShardReport shard(const std::string& name) {
  return read_shard_report(fixture(name));
}

// A fixture changed in memory, read back through the one reader.
ShardReport edited(const std::string& name, void (*edit)(json&)) {
  ShardReport r = shard(name);
  edit(r.document);
  r.loaded = read_report_json(r.document, r.path);
  return r;
}

MergedReport merge(const std::vector<ShardReport>& shards, bool allow_mismatch = false) {
  return merge_shard_reports(shards, allow_mismatch, {"normbench", "merge"},
                             "2026-01-01T00:00:00Z");
}

std::string refusal(const std::vector<ShardReport>& shards, bool allow_mismatch = false) {
  try {
    merge(shards, allow_mismatch);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(merged)";
}

using testing::contains;

TEST(MergeShards, TwoShardsGiveBackTheUnshardedRun) {
  const MergedReport merged = merge({shard("shard2of2.json"), shard("shard1of2.json")});
  EXPECT_TRUE(merged.warnings.empty());
  const LoadedReport report = read_report_json(merged.report, "merged.json");
  const LoadedReport whole = read_report_file(fixture("unsharded.json"));
  EXPECT_EQ(report.header.config_hash, whole.header.config_hash);
  EXPECT_EQ(report.header.device_name, whole.header.device_name);
  EXPECT_FALSE(report.shard);
  ASSERT_EQ(report.problems.size(), whole.problems.size());
  for (size_t p = 0; p < whole.problems.size(); ++p) {
    const LoadedProblem& a = whole.problems[p];
    const LoadedProblem& b = report.problems[p];
    EXPECT_EQ(a.id, b.id);  // plan order
    EXPECT_EQ(a.identity, b.identity);
    ASSERT_EQ(a.kernels.size(), b.kernels.size()) << a.id;
    for (size_t k = 0; k < a.kernels.size(); ++k) {
      EXPECT_EQ(a.kernels[k].id, b.kernels[k].id);
      EXPECT_EQ(a.kernels[k].status, b.kernels[k].status);
      ASSERT_EQ(a.kernels[k].timing.has_value(), b.kernels[k].timing.has_value());
      if (a.kernels[k].timing) {
        EXPECT_EQ(a.kernels[k].timing->samples_ms, b.kernels[k].timing->samples_ms);
      }
      ASSERT_TRUE(b.kernels[k].shard);
      EXPECT_EQ(b.kernels[k].device, 0);
    }
  }
  // Both shards' GPUs, each tagged; a kernel of shard 2 finds its own GPU's copy bandwidth.
  ASSERT_EQ(report.header.devices.size(), 2u);
  EXPECT_EQ(report.header.devices[0].shard, 1);
  EXPECT_EQ(report.header.devices[1].shard, 2);
  const LoadedKernel& of_shard_2 = report.problems[0].kernels[0];
  ASSERT_EQ(of_shard_2.shard, 2);
  EXPECT_EQ(copy_gb_per_s_of(report.header, of_shard_2), 3021.5);

  const json& j = merged.report;
  EXPECT_EQ(j["created_at"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(j["command_line"], json({"normbench", "merge"}));
  EXPECT_TRUE(j["shard"].is_null());
  EXPECT_EQ(j["merged"]["shards"], 2);
  EXPECT_EQ(j["merged"]["from"][0]["shard"], 1);  // in shard order, whatever the argument order
  EXPECT_EQ(j["merged"]["work"], shard("shard1of2.json").document["shard"]["work"]);
  const json whole_doc = shard("unsharded.json").document;
  EXPECT_EQ(j["summary"], whole_doc["summary"]);
  EXPECT_EQ(j["exit_code"], 0);
  EXPECT_TRUE(j["aborted"].is_null());
}

// Each shard's GPU keeps the latency floor measured on it, and a kernel finds its own GPU's;
// shards older than the latency floor merge as before.
TEST(MergeShards, EachShardsGpuKeepsItsLatencyFloor) {
  const auto with_floor = [](double cold_ms) {
    return [cold_ms](json& doc) {
      doc["latency_floor"] = {{"bytes_moved", 1024},
                              {"empty_launch_ms", 0.0018},
                              {"cold_ms", cold_ms},
                              {"warm_ms", 0.0021}};
      doc["devices"][0]["latency_floor"] = doc["latency_floor"];
    };
  };
  ShardReport one = shard("shard1of2.json"), two = shard("shard2of2.json");
  with_floor(0.0029)(one.document);
  with_floor(0.0031)(two.document);
  one.loaded = read_report_json(one.document, one.path);
  two.loaded = read_report_json(two.document, two.path);
  const LoadedReport report = read_report_json(merge({one, two}).report, "merged.json");
  ASSERT_EQ(report.header.devices.size(), 2u);
  ASSERT_TRUE(report.header.latency_floor);
  EXPECT_EQ(report.header.latency_floor->cold_ms, 0.0029);  // shard 1's header
  EXPECT_EQ(report.header.devices[1].latency_floor->cold_ms, 0.0031);
  const LoadedKernel& of_shard_2 = report.problems[0].kernels[0];
  ASSERT_EQ(of_shard_2.shard, 2);
  EXPECT_EQ(latency_floor_of(report.header, of_shard_2)->cold_ms, 0.0031);

  const LoadedReport older =
      read_report_json(merge({shard("shard1of2.json"), shard("shard2of2.json")}).report, "m.json");
  EXPECT_FALSE(older.header.latency_floor);
  EXPECT_FALSE(latency_floor_of(older.header, older.problems[0].kernels[0]));
}

TEST(MergeShards, SpeedupsOverABaselineThatRanInTheOtherShard) {
  const MergedReport merged = merge({shard("shard1of2.json"), shard("shard2of2.json")});
  const json whole = shard("unsharded.json").document;
  // B's naive kernel ran in shard 1, group_norm.lookahead in shard 2, where its speedup was
  // null; merged, it is the ratio of the medians as in the unsharded run.
  const json& b = merged.report["problems"][1];
  ASSERT_EQ(b["id"], "B_group_norm");
  bool checked = false;
  for (size_t k = 0; k < b["kernels"].size(); ++k) {
    const json& kernel = b["kernels"][k];
    const json& expected = whole["problems"][1]["kernels"][k];
    ASSERT_EQ(kernel["id"], expected["id"]);
    EXPECT_EQ(kernel["speedup"]["baseline"], "group_norm.naive");
    EXPECT_NEAR(kernel["speedup"]["vs_baseline"].get<double>(),
                expected["speedup"]["vs_baseline"].get<double>(), 1e-12);
    checked = checked || kernel["shard"] == 2;
  }
  EXPECT_TRUE(checked) << "the fixture no longer splits B between the shards";
}

// The merged report of the fixtures, as committed: the Python schema test validates it against
// results/report.schema.json. Regenerate it when the merge or the fixtures change:
//   NORMBENCH_WRITE_FIXTURES=1 build/tests/normbench_cpu_tests --gtest_filter=MergeShards.*
TEST(MergeShards, MatchesItsCommittedOutput) {
  json merged = merge({shard("shard1of2.json"), shard("shard2of2.json")}).report;
  // The shards' paths are where this checkout lies: compare their file names.
  for (json& from : merged["merged"]["from"])
    from["path"] = std::filesystem::path(from["path"].get<std::string>()).filename().string();
  const std::string path = fixture("merged.json");
  if (std::getenv("NORMBENCH_WRITE_FIXTURES")) std::ofstream(path) << merged.dump(1) << "\n";
  EXPECT_EQ(json::parse(testing::read_text(path)), merged)
      << "the merge changed: regenerate the fixture (see above) and check the schema";
}

TEST(MergeShards, GapsAndOverlapsAreRefusedNamingTheFileAndThePairs) {
  const std::string gap = refusal({shard("shard1of2.json"), shard("gap_shard2of2.json")});
  EXPECT_TRUE(contains(gap,
                       "gap_shard2of2.json (shard 2/2) lacks C_layer_norm_gelu_scale / "
                       "layer_norm_gelu_scale.warp_per_row"))
      << gap;
  EXPECT_TRUE(contains(gap, "a gap")) << gap;
  const std::string overlap = refusal({shard("shard1of2.json"), shard("overlap_shard2of2.json")});
  EXPECT_TRUE(contains(overlap,
                       "overlap_shard2of2.json (shard 2/2) ran B_group_norm / "
                       "group_norm.naive"))
      << overlap;
  EXPECT_TRUE(contains(overlap, "the shards overlap")) << overlap;
}

TEST(MergeShards, AShardMissingOrGivenTwiceIsRefused) {
  const std::string missing = refusal({shard("shard1of2.json")});
  EXPECT_TRUE(contains(missing, "shard 2/2 is missing")) << missing;
  const std::string twice = refusal({shard("shard1of2.json"), shard("shard1of2.json")});
  EXPECT_TRUE(contains(twice, "shard 1/2 is given twice")) << twice;
  const std::string counts = refusal({shard("shard1of3.json"), shard("shard2of2.json")});
  EXPECT_TRUE(contains(counts, "different shard counts")) << counts;
  EXPECT_TRUE(contains(counts, "shard1of3.json is shard 1/3")) << counts;
  const std::string unsharded = refusal({shard("unsharded.json"), shard("shard2of2.json")});
  EXPECT_TRUE(contains(unsharded, "unsharded.json is not the report of a shard")) << unsharded;
}

// One line per missing shard made a message of 10,000 lines (and of billions, before the
// reader bounded the count).
TEST(MergeShards, ManyMissingShardsAreNamedAFewThenCounted) {
  const std::string missing =
      refusal({edited("shard1of2.json", [](json& d) { d["shard"]["count"] = 10000; })});
  EXPECT_TRUE(contains(missing,
                       "shards 2/10000, 3/10000, 4/10000, 5/10000, 6/10000 and 9994 more are "
                       "missing: no report of them was given"))
      << missing.substr(0, 1000);
  EXPECT_LT(missing.size(), 1000u);
}

TEST(MergeShards, OtherConfigToolSettingsOrWorkAreRefused) {
  const std::string config =
      refusal({shard("shard1of2.json"), shard("other_config_shard2of2.json")});
  EXPECT_TRUE(contains(config, "different configs")) << config;
  EXPECT_TRUE(contains(config, "other_config_shard2of2.json")) << config;
  const std::string tool = refusal({shard("shard1of2.json"), shard("other_tool_shard2of2.json")});
  EXPECT_TRUE(contains(tool, "different tools")) << tool;
  EXPECT_TRUE(contains(tool, "0badc0de")) << tool;
  const std::string trials =
      refusal({shard("shard1of2.json"),
               edited("shard2of2.json", [](json& d) { d["settings"]["trials_override"] = 1; })});
  EXPECT_TRUE(contains(trials, "settings.trials_override null")) << trials;
  const std::string work =
      refusal({shard("shard1of2.json"),
               edited("shard2of2.json", [](json& d) { d["shard"]["work"][0]["cost"] = 1; })});
  EXPECT_TRUE(contains(work, "different planned work")) << work;
}

TEST(MergeShards, OtherGpuModelsOnlyWithAllowMismatch) {
  const std::vector<ShardReport> shards = {shard("shard1of2.json"),
                                           shard("other_device_shard2of2.json")};
  const std::string refused = refusal(shards);
  EXPECT_TRUE(contains(refused, "different GPU models")) << refused;
  EXPECT_TRUE(contains(refused, "NVIDIA A100-SXM4-80GB")) << refused;
  const MergedReport merged = merge(shards, true);
  ASSERT_EQ(merged.warnings.size(), 1u);
  EXPECT_TRUE(contains(merged.warnings[0], "--allow-mismatch"));
}

// A shard whose run found no GPU (device null) is a model of its own, whichever shard comes first.
TEST(MergeShards, AShardOfNoDeviceBesideAGpuIsAnotherModel) {
  const auto no_device = [](json& d) {
    d["device"] = nullptr;
    d.erase("devices");
  };
  const std::string second =
      refusal({shard("shard1of2.json"), edited("shard2of2.json", no_device)});
  EXPECT_TRUE(contains(second, "different GPU models")) << second;
  EXPECT_TRUE(contains(second, "on no device")) << second;
  const std::string first = refusal({edited("shard1of2.json", no_device), shard("shard2of2.json")});
  EXPECT_TRUE(contains(first, "ran on no device")) << first;
}

TEST(MergeShards, AnAbortedShardMakesAnAbortedMerge) {
  const MergedReport merged = merge({shard("shard1of2.json"), edited("shard2of2.json", [](json& d) {
                                       d["aborted"] = "the GPU became unusable";
                                       d["exit_code"] = 3;
                                     })});
  EXPECT_EQ(merged.report["exit_code"], 3);
  EXPECT_EQ(merged.report["aborted"], "shard 2/2: the GPU became unusable");
}

TEST(MergeShards, AFailedKernelMakesExitCodeOne) {
  const MergedReport merged = merge({edited("shard1of2.json",
                                            [](json& d) {
                                              json& k = d["problems"][0]["kernels"][1];
                                              k["status"] = "failed";
                                              k["reason"] = "trial 0: 3 elements";
                                              k["timing"] = nullptr;
                                              k["bandwidth"] = nullptr;
                                            }),
                                     shard("shard2of2.json")});
  EXPECT_EQ(merged.report["exit_code"], 1);
  EXPECT_EQ(merged.report["summary"]["failed"], 1);
}

// Fields the merge computes with, malformed in one shard: exit 2 naming the file and the JSON
// path, where the merge once ended in an internal error (exit 3).
TEST(MergeShards, MalformedFieldsAreRefusedNamingFileAndPath) {
  testing::TempDir dir;
  const struct {
    void (*edit)(json&);
    std::string message;
  } cases[] = {
      {[](json& d) { d["problems"][0]["status"] = 3; },
       "/problems/0/status: expected a string, got 3"},
      {[](json& d) { d["problems"][0]["status"] = nullptr; },
       "/problems/0/status: expected a string, got null"},
      {[](json& d) { d["problems"][0]["kernels"][0]["is_baseline"] = nullptr; },
       "/problems/0/kernels/0/is_baseline: expected true or false, got null"},
      // `run --shard K/N` makes at most 10000 shards; merge would count out every missing one.
      {[](json& d) { d["shard"]["count"] = 2147483647; },
       "/shard/count: 2147483647 is out of range; allowed: an integer from 1 to 10000"},
  };
  for (const auto& c : cases) {
    json doc = json::parse(testing::read_text(fixture("shard1of2.json")));
    c.edit(doc);
    testing::write_text(dir.file("shard1.json"), doc.dump());
    try {
      read_shard_report(dir.file("shard1.json"));
      ADD_FAILURE() << "accepted: " << c.message;
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), dir.file("shard1.json") + ": " + c.message);
    }
  }
}

// A kernel without "timing" (one that errored; a timed run times every kernel that passes) or
// with a timing where it did not pass has no time: its speedup is null, and the merge goes on.
TEST(MergeShards, AKernelWithoutTimingMergesWithoutASpeedup) {
  const MergedReport merged = merge({edited("shard1of2.json",
                                            [](json& d) {
                                              d["problems"][0]["kernels"][1].erase("timing");
                                              d["problems"][0]["kernels"][1]["status"] = "error";
                                              d["problems"][0]["kernels"][2]["status"] = "failed";
                                            }),
                                     shard("shard2of2.json")});
  const json first = shard("shard1of2.json").document.at("problems").at(0);
  std::map<std::string, json> speedups;
  for (const json& p : merged.report.at("problems"))
    if (p.at("id") == first.at("id"))
      for (const json& k : p.at("kernels")) speedups[k.at("id")] = k.at("speedup");
  EXPECT_TRUE(speedups.at(first["kernels"][1]["id"]).at("vs_baseline").is_null());
  EXPECT_TRUE(speedups.at(first["kernels"][2]["id"]).at("vs_baseline").is_null());
  EXPECT_TRUE(speedups.at(first["kernels"][0]["id"]).at("vs_baseline").is_number());
  EXPECT_EQ(merged.report.at("summary").at("failed"), 1);
  EXPECT_EQ(merged.report.at("summary").at("error"), 1);
}

}  // namespace
}  // namespace normbench
