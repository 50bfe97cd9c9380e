// --shard K/N without a GPU: parsing, and the split of a config's (problem, kernel) work:
// deterministic, every pair in exactly one shard, balanced within one problem, small problems
// kept whole, the filters and --trials applied.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/run/work_plan.hpp"
#include "app/util/errors.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using Pair = std::pair<std::string, std::string>;

const RunConfig& kernelbench() {
  static const RunConfig config = builtin_config();
  return config;
}

std::vector<PlannedProblem> plan_of(std::vector<std::string> problems = {},
                                    std::vector<std::string> kernels = {}) {
  RunSettings settings;
  settings.problem_filter = std::move(problems);
  settings.kernel_filter = std::move(kernels);
  return plan_run(kernelbench(), settings);
}

std::set<Pair> pairs_of(const std::vector<PlannedProblem>& plan) {
  std::set<Pair> pairs;
  for (const auto& p : plan)
    for (const KernelVariant* k : p.kernels) pairs.insert({p.problem->id, k->id});
  return pairs;
}

// Each shard's load as the split sees it: its items' costs and each group's setup once.
std::vector<uint64_t> loads(const std::vector<CostedItem>& items,
                            const std::vector<uint64_t>& setup, const std::vector<int>& shard,
                            int count) {
  std::vector<uint64_t> load(static_cast<size_t>(count), 0);
  std::set<std::pair<int, size_t>> set_up;
  for (size_t i = 0; i < items.size(); ++i) {
    const auto s = static_cast<size_t>(shard[i] - 1);
    load[s] += items[i].cost;
    if (set_up.insert({shard[i], items[i].group}).second) load[s] += setup[items[i].group];
  }
  return load;
}

TEST(ParseShard, TakesKOfN) {
  EXPECT_EQ(parse_shard("1/2").index, 1);
  EXPECT_EQ(parse_shard("1/2").count, 2);
  EXPECT_EQ(parse_shard("2/2").index, 2);
  EXPECT_EQ(parse_shard("1/1").count, 1);
  EXPECT_EQ(parse_shard("17/100").index, 17);
}

TEST(ParseShard, RefusesEverythingElseNamingTheValue) {
  for (const std::string bad : {"", "1", "/", "1/", "/2", "0/2", "3/2", "1/0", "a/b", "-1/2",
                                "+1/2", " 1/2", "1/2 ", "1/2/3", "1.0/2", "1/20000", "1//2"}) {
    try {
      parse_shard(bad);
      ADD_FAILURE() << "accepted \"" << bad << "\"";
    } catch (const UsageError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("--shard " + bad + ":"), std::string::npos) << what;
      EXPECT_NE(what.find("allowed: K/N"), std::string::npos) << what;
    }
  }
}

TEST(ShardSplit, EveryPairIsInExactlyOneShardAndTheSplitIsDeterministic) {
  const auto plan = plan_of();
  const std::set<Pair> all = pairs_of(plan);
  ASSERT_GE(all.size(), 15u);
  for (int count = 1; count <= 6; ++count) {
    const std::vector<WorkEntry> work = plan_work(plan, std::nullopt, count);
    ASSERT_EQ(work.size(), all.size());
    const std::vector<WorkEntry> again = plan_work(plan_of(), std::nullopt, count);
    std::set<Pair> covered;
    for (size_t i = 0; i < work.size(); ++i) {
      EXPECT_EQ(work[i].problem, again[i].problem);
      EXPECT_EQ(work[i].kernel, again[i].kernel);
      EXPECT_EQ(work[i].shard, again[i].shard) << "the split differs between two calls";
      EXPECT_EQ(work[i].cost, again[i].cost);
      EXPECT_GE(work[i].shard, 1);
      EXPECT_LE(work[i].shard, count);
    }
    for (int k = 1; k <= count; ++k)
      for (const Pair& p : pairs_of(shard_of(plan, work, k)))
        EXPECT_TRUE(covered.insert(p).second) << p.first << " / " << p.second << " twice";
    EXPECT_EQ(covered, all) << count << " shards";
  }
}

TEST(ShardSplit, ShardsKeepThePlansOrder) {
  const auto plan = plan_of();
  const std::vector<WorkEntry> work = plan_work(plan, std::nullopt, 2);
  for (size_t i = 0; i < work.size(); ++i) {  // the work list is the plan, in order
    size_t at = 0;
    for (const auto& p : plan)
      for (const KernelVariant* k : p.kernels) {
        if (at == i) {
          EXPECT_EQ(work[i].problem, p.problem->id);
          EXPECT_EQ(work[i].kernel, k->id);
        }
        ++at;
      }
  }
  for (int k = 1; k <= 2; ++k) {
    const auto shard = shard_of(plan, work, k);
    std::vector<std::string> order;
    for (const auto& p : shard) order.push_back(p.problem->id);
    std::vector<std::string> expected;
    for (const auto& p : plan)
      if (std::find_if(shard.begin(), shard.end(), [&](const PlannedProblem& s) {
            return s.problem == p.problem;
          }) != shard.end())
        expected.push_back(p.problem->id);
    EXPECT_EQ(order, expected);
  }
}

TEST(ShardSplit, BalancedWithinTheLargestProblem) {
  std::mt19937_64 random(7);
  for (int round = 0; round < 200; ++round) {
    const size_t groups = 1 + random() % 12;
    std::vector<uint64_t> setup;
    for (size_t g = 0; g < groups; ++g) setup.push_back(random() % 5000);
    std::vector<CostedItem> items;
    const size_t n = random() % 60;
    for (size_t i = 0; i < n; ++i) items.push_back({random() % groups, 1 + random() % 10000});
    const int count = 1 + static_cast<int>(random() % 8);
    const std::vector<int> shard = split_balanced(items, setup, count);
    ASSERT_EQ(shard.size(), items.size());
    std::vector<uint64_t> group_total = setup;
    for (const CostedItem& item : items) group_total[item.group] += item.cost;
    const uint64_t largest = *std::max_element(group_total.begin(), group_total.end());
    const auto load = loads(items, setup, shard, count);
    const auto [low, high] = std::minmax_element(load.begin(), load.end());
    EXPECT_LE(*high - *low, largest) << "round " << round;
    EXPECT_EQ(split_balanced(items, setup, count), shard);
  }
}

TEST(ShardSplit, TiesGoToTheLowerIndexAndSmallProblemsStayWhole) {
  // Equal items without setup: dealt out in index order.
  EXPECT_EQ(split_balanced({{0, 5}, {1, 5}, {2, 5}, {3, 5}}, {0, 0, 0, 0}, 2),
            (std::vector<int>{1, 2, 1, 2}));
  // One large problem (group 0, more than half a shard's share) and two small ones: the large
  // one is split, each small one goes whole to one shard.
  const std::vector<CostedItem> items = {{0, 100}, {0, 100}, {0, 100}, {0, 100},
                                         {1, 2},   {1, 2},   {2, 2},   {2, 2}};
  const std::vector<int> shard = split_balanced(items, {50, 10, 10}, 2);
  EXPECT_EQ(shard[4], shard[5]);
  EXPECT_EQ(shard[6], shard[7]);
  EXPECT_NE(std::count(shard.begin(), shard.begin() + 4, 1), 0);
  EXPECT_NE(std::count(shard.begin(), shard.begin() + 4, 2), 0);
}

// Costs of the largest problems a config allows (2^57 elements, a million trials: 2^61 MiB)
// wrapped past 2^64 in the loads, and a wrapped load looked the least loaded.
TEST(ShardSplit, HugeCostsNeitherWrapNorUnbalanceTheSplit) {
  EXPECT_EQ(saturating_add(uint64_t{1} << 62, uint64_t{1} << 62), uint64_t{1} << 63);
  EXPECT_EQ(saturating_add(UINT64_MAX - 1, 2), UINT64_MAX);
  std::string problems;
  for (const char* id : {"a", "b", "c", "d"})
    problems += std::string(problems.empty() ? "" : ",") + R"({"id": ")" + id +
                R"(", "op": "add_rms_norm", "shape": [131071, 1099511627776],
                   "normalized_shape": [1099511627776]})";
  const RunConfig config =
      parse_config(R"({"name": "huge", "problems": [)" + problems + "]}", "huge.json");
  const auto plan = plan_run(config, RunSettings{});
  const std::vector<WorkEntry> work = plan_work(plan, 1000000, 2);
  const std::vector<uint64_t> loads = shard_loads(plan, work, 1000000, 2);
  EXPECT_EQ(loads[0], loads[1]);
  EXPECT_LT(loads[0], UINT64_MAX / 2);
}

TEST(ShardSplit, OneShardHasEverything) {
  for (const WorkEntry& w : plan_work(plan_of(), std::nullopt, 1)) EXPECT_EQ(w.shard, 1);
}

TEST(ShardSplit, FiltersAndTrialsApply) {
  const auto only_b = plan_of({"B_group_norm"});
  for (const WorkEntry& w : plan_work(only_b, std::nullopt, 3))
    EXPECT_EQ(w.problem, "B_group_norm");
  const auto naive = plan_of({}, {"layer_norm.naive", "group_norm.naive"});
  const std::vector<WorkEntry> work = plan_work(naive, std::nullopt, 2);
  ASSERT_EQ(work.size(), 2u);  // C has no kernel left: no pair of it
  EXPECT_EQ(work[0].kernel, "layer_norm.naive");
  EXPECT_EQ(work[1].kernel, "group_norm.naive");
  EXPECT_NE(work[0].shard, work[1].shard);

  // Costs scale with the trials the run makes; baselines count double.
  const std::vector<WorkEntry> three = plan_work(plan_of({"A_layer_norm"}), std::nullopt, 1);
  const std::vector<WorkEntry> one = plan_work(plan_of({"A_layer_norm"}), 1, 1);
  ASSERT_EQ(three.size(), one.size());
  for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(three[i].cost, 3 * one[i].cost);
  const uint64_t mib = (570425344 + (1 << 20) - 1) / (1 << 20) + 64;  // A's bytes per trial
  EXPECT_EQ(one[0].kernel, "layer_norm.naive");
  EXPECT_EQ(one[0].cost, 2 * mib);
  EXPECT_EQ(one[1].cost, mib);
}

// --kernel leaves B and C without kernels: they are not set up at all (B's float64 references
// alone are gigabytes), as a shard leaves them out.
TEST(PlanRun, LeavesOutProblemsTheKernelFilterLeavesWithoutKernels) {
  const auto plan = plan_of({}, {"layer_norm.default"});
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].problem->id, "A_layer_norm");
  EXPECT_EQ(plan_of().size(), 3u);  // without the filter, every problem
  // A filter that leaves nothing at all is still refused, naming the problems' ops.
  const std::string refusal =
      testing::usage_error([] { plan_of({"B_group_norm"}, {"layer_norm.default"}); });
  EXPECT_TRUE(
      testing::contains(refusal, "allowed: kernels of the selected problems' ops (group_norm)"))
      << "refusal: \"" << refusal << "\"";
}

TEST(ShardSplit, LoadsCountEachProblemsSetupOncePerShard) {
  const auto plan = plan_of();
  uint64_t whole = 0, largest = 0;
  for (const auto& p : plan) {
    whole += problem_cost(p, std::nullopt);
    largest = std::max(largest, problem_cost(p, std::nullopt));
  }
  EXPECT_EQ(shard_loads(plan, plan_work(plan, std::nullopt, 1), std::nullopt, 1),
            (std::vector<uint64_t>{whole}));
  for (int count = 2; count <= 4; ++count) {
    const auto loads = shard_loads(plan, plan_work(plan, std::nullopt, count), std::nullopt, count);
    ASSERT_EQ(loads.size(), static_cast<size_t>(count));
    uint64_t sum = 0;
    for (uint64_t load : loads) sum += load;
    EXPECT_GE(sum, whole);  // setups paid again where a problem is split
    const auto [low, high] = std::minmax_element(loads.begin(), loads.end());
    EXPECT_LE(*high - *low, largest) << count << " shards";
  }
}

TEST(ShardSplit, ProblemCostIsSetupAndKernels) {
  const auto plan = plan_of({"C_layer_norm_gelu_scale"});
  const ProblemConfig& c = *plan[0].problem;
  uint64_t expected = setup_cost(c, c.trials);
  for (const KernelVariant* k : plan[0].kernels) expected += kernel_cost(c, *k, c.trials);
  EXPECT_EQ(problem_cost(plan[0], std::nullopt), expected);
  EXPECT_EQ(problem_cost(plan[0], 1) * static_cast<uint64_t>(c.trials), expected);
}

}  // namespace
}  // namespace normbench
