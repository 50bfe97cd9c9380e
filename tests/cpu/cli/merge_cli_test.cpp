// The CI path end to end on the committed shards (tests/fixtures/merge): `normbench merge`
// joins them into a report that `compare` finds the same as the unsharded run and that
// `report` turns into JUnit and CSV; every bad combination exits 2 naming the file, writing
// nothing. Also `plan --shard` (the same split a run makes).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using testing::CliRun;
using testing::quoted;

std::string shard(const std::string& name) {
  return quoted(testing::source_path("tests/fixtures/merge/" + name));
}

// Runs `normbench ARGS` (already shell-quoted) in `dir`, stdout and stderr captured.
CliRun normbench(const testing::TempDir& dir, const std::string& args) {
  return testing::run_binary(NORMBENCH_BINARY, dir, args);
}

using testing::contains;

TEST(MergeCli, ShardsMergeIntoTheUnshardedRunForCompareAndReport) {
  testing::TempDir dir;
  const CliRun merged = normbench(
      dir, "merge " + shard("shard2of2.json") + " " + shard("shard1of2.json") + " --out all.json");
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_TRUE(contains(merged.out, "merged 2 shards: 17 kernels of 3 problems")) << merged.out;
  // The merged report has the summary's rows, one per problem, as a run's report has.
  const nlohmann::json all = nlohmann::json::parse(testing::read_text(dir.file("all.json")));
  ASSERT_EQ(all["summary"]["problems"].size(), 3u);
  EXPECT_EQ(all["summary"]["problems"][0]["problem"], all["problems"][0]["id"]);
  EXPECT_EQ(all["summary"]["kernels"], 17);

  const CliRun same = normbench(dir, "compare " + shard("unsharded.json") + " all.json --json");
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  const nlohmann::json verdicts = nlohmann::json::parse(same.out);
  ASSERT_EQ(verdicts["results"].size(), 17u);
  for (const auto& r : verdicts["results"])
    EXPECT_TRUE(r["verdict"] == "same" || r["verdict"] == "unchanged_status")
        << r["problem"] << " " << r["kernel"] << ": " << r["verdict"];

  EXPECT_EQ(normbench(dir, "report all.json --out all.xml").exit_code, 0);
  const std::string xml = testing::read_text(dir.file("all.xml"));
  EXPECT_TRUE(contains(xml, "tests=\"17\" failures=\"0\" errors=\"0\" skipped=\"1\"")) << xml;
  EXPECT_EQ(normbench(dir, "report all.json --format csv --out -").exit_code, 0);
  const CliRun csv = normbench(dir, "report all.json --format csv --out -");
  EXPECT_EQ(csv.out.rfind("report,problem,op,kernel,", 0), 0u) << csv.out;
  EXPECT_EQ(normbench(dir, "report all.json --out all.md").exit_code, 0);
}

TEST(MergeCli, BadCombinationsExitTwoNamingTheFilesAndWriteNothing) {
  struct Case {
    std::string files;
    std::string message;
  };
  const Case cases[] = {
      {shard("shard1of2.json") + " " + shard("gap_shard2of2.json"), "gap_shard2of2.json"},
      {shard("shard1of2.json") + " " + shard("overlap_shard2of2.json"), "overlap_shard2of2.json"},
      {shard("shard1of2.json") + " " + shard("other_config_shard2of2.json"), "different configs"},
      {shard("shard1of2.json") + " " + shard("other_tool_shard2of2.json"), "different tools"},
      {shard("shard1of2.json") + " " + shard("other_device_shard2of2.json"),
       "different GPU models"},
      {shard("shard1of3.json") + " " + shard("shard2of2.json"), "different shard counts"},
      {shard("shard1of2.json"), "shard 2/2 is missing"},
      {shard("shard1of2.json") + " " + shard("shard1of2.json"), "given twice"},
      {shard("unsharded.json") + " " + shard("shard2of2.json"), "unsharded.json is not"},
      {shard("shard1of2.json") + " " + quoted("no-such.json"), "no-such.json"},
      {shard("shard1of2.json") + " " + shard("make_fixtures.py"), "make_fixtures.py"},
  };
  for (const Case& c : cases) {
    testing::TempDir dir;
    const CliRun r = normbench(dir, "merge " + c.files + " --out out/all.json");
    EXPECT_EQ(r.exit_code, 2) << c.files << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, c.message)) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("out"))) << c.files;
  }
  testing::TempDir dir;
  const CliRun allowed =
      normbench(dir, "merge " + shard("shard1of2.json") + " " +
                         shard("other_device_shard2of2.json") + " --allow-mismatch --out all.json");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_TRUE(contains(allowed.err, "warning: different GPU models")) << allowed.err;
  EXPECT_EQ(normbench(dir, "merge --out x.json").exit_code, 2);                // no inputs
  EXPECT_EQ(normbench(dir, "merge " + shard("shard1of2.json")).exit_code, 2);  // no --out
  const CliRun onto_input =
      normbench(dir, "merge all.json " + shard("shard2of2.json") + " --out all.json");
  EXPECT_EQ(onto_input.exit_code, 2) << onto_input.err;
}

// The pairs of the kernels of `plan --json` output.
std::set<std::string> planned_pairs(const std::string& json_text) {
  std::set<std::string> pairs;
  const nlohmann::json plan = nlohmann::json::parse(json_text);
  for (const auto& p : plan["problems"])
    for (const auto& k : p["kernels"])
      pairs.insert(p["id"].get<std::string>() + "/" + k.get<std::string>());
  return pairs;
}

TEST(PlanCli, ShardsOfThePlanCoverItOnceAndShowTheSplit) {
  testing::TempDir dir;
  const CliRun whole = normbench(dir, "plan --json");
  const CliRun first = normbench(dir, "plan --json --shard 1/2");
  const CliRun second = normbench(dir, "plan --json --shard 2/2");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const auto all = planned_pairs(whole.out), a = planned_pairs(first.out),
             b = planned_pairs(second.out);
  EXPECT_FALSE(a.empty());
  EXPECT_FALSE(b.empty());
  std::set<std::string> both = a;
  both.insert(b.begin(), b.end());
  EXPECT_EQ(both, all);
  EXPECT_EQ(a.size() + b.size(), all.size());
  const auto work = nlohmann::json::parse(first.out)["shard"]["work"];
  EXPECT_EQ(work.size(), all.size());
  EXPECT_EQ(work, nlohmann::json::parse(second.out)["shard"]["work"]);
  EXPECT_TRUE(nlohmann::json::parse(whole.out)["shard"].is_null());
  const CliRun text = normbench(dir, "plan --shard 2/3");
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_TRUE(contains(text.out, "shard 2/3: ")) << text.out;
  EXPECT_EQ(normbench(dir, "plan --shard 3/2").exit_code, 2);
}

}  // namespace
}  // namespace normbench
