// Unit tests of `normbench compare`'s core: the Mann-Whitney U test, the timing rule, the
// status rules, the report loader and the JSON output.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/compare/compare.hpp"
#include "app/compare/compare_format.hpp"
#include "app/compare/mann_whitney.hpp"
#include "app/results/report_reader.hpp"
#include "app/util/errors.hpp"

namespace normbench {
namespace {

// n samples around `median`, spread +-spread (relative), deterministic and symmetric.
std::vector<double> samples_around(double median, double spread, int n = 10) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(median * (1.0 + spread * (2.0 * i / (n - 1) - 1.0)));
  return v;
}

std::vector<double> scaled(std::vector<double> v, double factor) {
  for (double& x : v) x *= factor;
  return v;
}

// ---- Mann-Whitney U: expected values by hand with the normal approximation (see comments).

TEST(CompareMannWhitney, CompleteSeparation) {
  // U_x = 0, U_y = 25, mean 12.5, var 5*5*11/12 = 22.9167; z = (25 - 12.5 - 0.5)/4.7871 = 2.50672;
  // p = erfc(z / sqrt 2) = 0.0121858 (scipy method="asymptotic" agrees).
  const auto r = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(r.u_x, 0.0);
  EXPECT_DOUBLE_EQ(r.u_y, 25.0);
  EXPECT_NEAR(r.z, 2.5067182457620487, 1e-12);
  EXPECT_NEAR(r.p_value, 0.012185780355344818, 1e-12);
}

TEST(CompareMannWhitney, SmallestPIsThatOfCompleteSeparation) {
  EXPECT_NEAR(mann_whitney_smallest_p(5, 5), 0.012185780355344818, 1e-12);  // as above
  for (const auto& [n, m] : {std::pair<int, int>{6, 6}, {3, 7}, {10, 16}, {40, 40}}) {
    std::vector<double> low, high;
    for (int i = 0; i < n; ++i) low.push_back(i);
    for (int i = 0; i < m; ++i) high.push_back(100 + i);
    EXPECT_NEAR(mann_whitney_smallest_p(n, m), mann_whitney_u(low, high).p_value, 1e-15)
        << n << " vs " << m;
  }
  EXPECT_LT(mann_whitney_smallest_p(6, 6), 0.01);  // the fewest equal counts that reach 0.01
  EXPECT_DOUBLE_EQ(mann_whitney_smallest_p(0, 5), 1.0);
}

TEST(CompareMannWhitney, ScipyDocumentationExample) {
  // scipy.stats.mannwhitneyu docs: males vs females, method="asymptotic": U = 17, p =
  // 0.11134688653314041.
  const auto r = mann_whitney_u({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  EXPECT_DOUBLE_EQ(r.u_x, 17.0);
  EXPECT_DOUBLE_EQ(r.u_y, 3.0);
  EXPECT_NEAR(r.p_value, 0.11134688653314041, 1e-12);
}

TEST(CompareMannWhitney, TieCorrection) {
  // Ranks: 1 | 2,2,2 -> 3 | 3,3,3 -> 6 | 4 -> 8 | 5,6,7 -> 9,10,11. R_x = 1+3+3+6+8 = 21,
  // U_x = 21 - 15 = 6, U_y = 24. Ties: two groups of 3: sum(t^3 - t) = 48.
  // var = 30/12 * (12 - 48/110) = 28.90909; z = (24 - 15 - 0.5)/sqrt(var) = 1.58089; p = 0.113903.
  const auto r = mann_whitney_u({1, 2, 2, 3, 4}, {2, 3, 3, 5, 6, 7});
  EXPECT_DOUBLE_EQ(r.u_x, 6.0);
  EXPECT_DOUBLE_EQ(r.u_y, 24.0);
  EXPECT_NEAR(r.z, 1.5808902038022714, 1e-12);
  EXPECT_NEAR(r.p_value, 0.11390314458853065, 1e-12);
}

TEST(CompareMannWhitney, SymmetricInItsArguments) {
  const std::vector<double> x = {1, 2, 2, 3, 4}, y = {2, 3, 3, 5, 6, 7};
  const auto a = mann_whitney_u(x, y), b = mann_whitney_u(y, x);
  EXPECT_DOUBLE_EQ(a.u_x, b.u_y);
  EXPECT_DOUBLE_EQ(a.p_value, b.p_value);
}

TEST(CompareMannWhitney, NoEvidenceGivesPOne) {
  EXPECT_DOUBLE_EQ(mann_whitney_u({1, 1, 1}, {1, 1, 1, 1}).p_value, 1.0);  // every value tied
  EXPECT_DOUBLE_EQ(mann_whitney_u({}, {1, 2}).p_value, 1.0);
  const std::vector<double> x = {3, 1, 4, 1, 5, 9, 2, 6};
  EXPECT_DOUBLE_EQ(mann_whitney_u(x, x).p_value, 1.0);  // U = n^2/2 exactly
}

TEST(CompareMannWhitney, TenVersusTenSeparatedIsSignificant) {
  // U = 0 of 100, mean 50, var 100*21/12 = 175: z = 49.5/13.2288 = 3.7418, p = 1.83e-4.
  const auto r = mann_whitney_u(samples_around(1.0, 0.001), samples_around(1.1, 0.001));
  EXPECT_NEAR(r.p_value, std::erfc(49.5 / std::sqrt(175.0) / std::sqrt(2.0)), 1e-12);
  EXPECT_LT(r.p_value, 0.01);
}

// ---- The timing rule.

TEST(CompareTimingRule, IdenticalSamplesAreSame) {
  const auto s = samples_around(2.0, 0.003);
  const auto d = decide_timing(s, s, CompareSettings{});
  EXPECT_EQ(d.verdict, Verdict::same);
  EXPECT_DOUBLE_EQ(*d.stats.ratio, 1.0);
  EXPECT_DOUBLE_EQ(*d.stats.p_value, 1.0);
}

TEST(CompareTimingRule, SignificantTenPercentIsSlowerAndFifteenPercentFasterIsFaster) {
  const auto base = samples_around(2.0, 0.003);
  const auto slower = decide_timing(base, scaled(base, 1.10), CompareSettings{});
  EXPECT_EQ(slower.verdict, Verdict::slower);
  EXPECT_NEAR(*slower.stats.ratio, 1.10, 1e-12);
  EXPECT_EQ(decide_timing(base, scaled(base, 0.85), CompareSettings{}).verdict, Verdict::faster);
  // Swapping the reports swaps the verdict.
  EXPECT_EQ(decide_timing(scaled(base, 1.10), base, CompareSettings{}).verdict, Verdict::faster);
}

TEST(CompareTimingRule, SignificantButSmallChangeIsSame) {
  // A 3% shift of tight samples: p is tiny, but below the 5% minimum effect: not a regression.
  const auto base = samples_around(2.0, 0.002);
  const auto d = decide_timing(base, scaled(base, 1.03), CompareSettings{});
  EXPECT_LT(*d.stats.p_value, 0.01);
  EXPECT_EQ(d.verdict, Verdict::same);
}

TEST(CompareTimingRule, ThresholdsAreMirrorImages) {
  const auto base = samples_around(1.0, 0.001);
  const CompareSettings s;  // 5%: slower above 1.05, faster below 1/1.05 = 0.95238
  EXPECT_EQ(decide_timing(base, scaled(base, 1.049), s).verdict, Verdict::same);
  EXPECT_EQ(decide_timing(base, scaled(base, 1.051), s).verdict, Verdict::slower);
  EXPECT_EQ(decide_timing(base, scaled(base, 0.953), s).verdict, Verdict::same);
  EXPECT_EQ(decide_timing(base, scaled(base, 0.951), s).verdict, Verdict::faster);
  CompareSettings loose;
  loose.max_slowdown = 0.20;
  EXPECT_EQ(decide_timing(base, scaled(base, 1.10), loose).verdict, Verdict::same);
}

TEST(CompareTimingRule, BigButNotSignificantChangeIsInconclusive) {
  const auto base = samples_around(1.0, 0.003);
  // Median 1.08, but 4 samples below every baseline sample and 6 above: p ~ 0.47.
  const std::vector<double> cand = {0.80, 1.20, 0.85, 1.08, 0.90, 1.15, 1.08, 0.95, 1.085, 1.09};
  const auto d = decide_timing(base, cand, CompareSettings{});
  EXPECT_NEAR(*d.stats.ratio, 1.08, 1e-12);
  EXPECT_GT(*d.stats.p_value, 0.01);
  EXPECT_EQ(d.verdict, Verdict::inconclusive);
  EXPECT_NE(d.note.find("not significant"), std::string::npos);
}

TEST(CompareTimingRule, WideNoiseAroundTheSameMedianIsNeverSlower) {
  const auto base = samples_around(1.0, 0.002, 11);
  const auto noisy = samples_around(1.0, 0.10, 11);  // +-10%, same median
  const auto d = decide_timing(base, noisy, CompareSettings{});
  EXPECT_EQ(d.verdict, Verdict::same);
}

TEST(CompareTimingRule, TooFewSamplesIsInconclusive) {
  const auto five = samples_around(1.0, 0.001, 5), four = samples_around(1.0, 0.001, 4);
  const auto d = decide_timing(five, scaled(four, 2.0), CompareSettings{});
  EXPECT_EQ(d.verdict, Verdict::inconclusive);
  EXPECT_FALSE(d.stats.p_value.has_value());
  EXPECT_NE(d.note.find("too few samples (5 vs 4; need 5)"), std::string::npos);
  // 5 vs 5 is enough samples; same medians give "same".
  EXPECT_EQ(decide_timing(five, five, CompareSettings{}).verdict, Verdict::same);
  EXPECT_EQ(decide_timing({}, five, CompareSettings{}).verdict, Verdict::inconclusive);
}

// A gate that passed these would have been blind: the medians say slower, and the samples could
// not have shown it at any difference.
TEST(CompareTimingRule, ASlowdownTooFewSamplesCouldShowIsUntestedNotPassed) {
  const auto five = samples_around(1.0, 0.001, 5), four = samples_around(1.0, 0.001, 4);
  const auto twice = decide_timing(five, scaled(five, 2.0), CompareSettings{});
  EXPECT_EQ(twice.verdict, Verdict::inconclusive);
  EXPECT_TRUE(twice.untested_slowdown);
  EXPECT_NE(twice.note.find("5 vs 5 samples cannot reach p < 0.01 (their smallest p is 0.0122)"),
            std::string::npos)
      << twice.note;
  const auto few = decide_timing(five, scaled(four, 2.0), CompareSettings{});
  EXPECT_TRUE(few.untested_slowdown);
  EXPECT_NE(few.note.find("though the medians say 2.00x slower"), std::string::npos) << few.note;
  // Faster, or as fast: nothing untested.
  EXPECT_FALSE(decide_timing(five, scaled(five, 0.5), CompareSettings{}).untested_slowdown);
  EXPECT_FALSE(decide_timing(five, four, CompareSettings{}).untested_slowdown);
  // An alpha that 10 vs 10 samples cannot reach, or a minimum count they do not have.
  const auto ten = samples_around(1.0, 0.001, 10);
  CompareSettings tiny_alpha;
  tiny_alpha.alpha = 1e-6;
  EXPECT_TRUE(decide_timing(ten, scaled(ten, 2.0), tiny_alpha).untested_slowdown);
  CompareSettings many;
  many.min_samples = 17;
  EXPECT_TRUE(decide_timing(ten, scaled(ten, 2.0), many).untested_slowdown);
  // Enough samples, not significant: noise, not blindness.
  const auto d = decide_timing(ten, scaled(ten, 2.0), CompareSettings{});
  EXPECT_EQ(d.verdict, Verdict::slower);
  EXPECT_FALSE(d.untested_slowdown);
}

TEST(CompareTimingRule, ZeroBaselineMedianIsInconclusive) {
  const std::vector<double> zeros(6, 0.0);
  const auto d = decide_timing(zeros, samples_around(1.0, 0.01, 6), CompareSettings{});
  EXPECT_EQ(d.verdict, Verdict::inconclusive);
  EXPECT_FALSE(d.stats.ratio.has_value());
}

// ---- Status rules and matching.

LoadedKernel kernel(const std::string& id, const std::string& status,
                    std::optional<std::vector<double>> samples = std::nullopt) {
  LoadedKernel k;
  k.id = id;
  k.status = *kernel_status_from_string(status);
  k.reason = status == "passed" ? "" : "reason of " + id;
  if (samples) {
    k.timing = LoadedTiming{};
    k.timing->samples_ms = std::move(*samples);
  }
  return k;
}

LoadedProblem problem(const std::string& id, std::vector<LoadedKernel> kernels) {
  LoadedProblem p;
  p.id = id;
  p.kernels = std::move(kernels);
  return p;
}

LoadedReport report(std::vector<std::pair<std::string, std::vector<LoadedKernel>>> problems,
                    const std::string& device = "GPU X", const std::string& hash = "h1") {
  LoadedReport r;
  r.header.path = "mem.json";
  r.header.device_name = device;
  r.header.config_name = "cfg";
  r.header.config_hash = hash;
  for (auto& [id, kernels] : problems) r.problems.push_back(problem(id, std::move(kernels)));
  return r;
}

const KernelComparison& result_for(const Comparison& c, const std::string& kernel_id) {
  for (const auto& r : c.results)
    if (r.kernel == kernel_id) return r;
  throw std::runtime_error("no result for " + kernel_id);
}

TEST(CompareStatusRules, EveryTransition) {
  const auto t = samples_around(1.0, 0.002);
  const LoadedReport base =
      report({{"P",
               {kernel("pf", "passed", t), kernel("pe", "passed", t), kernel("pn", "passed", t),
                kernel("fp", "failed"), kernel("fe", "failed"), kernel("nn", "not_supported"),
                kernel("np", "not_supported"), kernel("nf", "not_supported"),
                kernel("sn", "skipped"), kernel("pt", "passed"), kernel("gone", "passed", t)}}});
  const LoadedReport cand =
      report({{"P",
               {kernel("pf", "failed"), kernel("pe", "error"), kernel("pn", "not_supported"),
                kernel("fp", "passed", t), kernel("fe", "error"), kernel("nn", "not_supported"),
                kernel("np", "passed", t), kernel("nf", "failed"), kernel("sn", "not_supported"),
                kernel("pt", "passed", t), kernel("added", "passed", t)}}});
  const Comparison c = compare_reports(base, cand, CompareSettings{});
  EXPECT_EQ(result_for(c, "pf").verdict, Verdict::failed_now);
  EXPECT_EQ(result_for(c, "pf").note, "reason of pf");
  EXPECT_EQ(result_for(c, "pe").verdict, Verdict::failed_now);
  EXPECT_EQ(result_for(c, "pn").verdict, Verdict::no_longer_runs);
  EXPECT_EQ(result_for(c, "fp").verdict, Verdict::fixed);
  EXPECT_EQ(result_for(c, "fe").verdict, Verdict::still_failing);
  EXPECT_EQ(result_for(c, "nn").verdict, Verdict::unchanged_status);
  EXPECT_EQ(result_for(c, "np").verdict, Verdict::status_changed);
  EXPECT_EQ(result_for(c, "nf").verdict, Verdict::failed_now);
  EXPECT_EQ(result_for(c, "sn").verdict, Verdict::status_changed);
  EXPECT_EQ(result_for(c, "pt").verdict, Verdict::not_timed);
  EXPECT_EQ(result_for(c, "gone").verdict, Verdict::missing);
  EXPECT_EQ(result_for(c, "added").verdict, Verdict::new_kernel);
  EXPECT_STREQ(to_string(Verdict::new_kernel), "new");
  // Regressions: pf, pe, nf (failed now), pn (no longer runs), gone (missing).
  EXPECT_EQ(c.regressions, 5);
  for (const char* id : {"fp", "fe", "nn", "np", "sn", "pt", "added"})
    EXPECT_FALSE(result_for(c, id).regression) << id;
  EXPECT_EQ(c.exit_code, kExitFailed);
  EXPECT_EQ(c.results.back().kernel, "added");  // new kernels after the problem's baseline kernels

  CompareSettings allow;
  allow.allow_missing = true;
  const Comparison a = compare_reports(base, cand, allow);
  EXPECT_FALSE(result_for(a, "gone").regression);
  EXPECT_FALSE(result_for(a, "pn").regression);
  EXPECT_EQ(a.regressions, 3);
}

// --allow-missing is for runs narrowed by --problem or --kernel; a kernel the candidate's run
// never reached (not_run: a GPU that became unusable) is still a regression, and reports that
// share no kernel compared nothing, which must not pass either.
TEST(CompareStatusRules, AllowMissingExcusesNeitherACutShortRunNorAnEmptyComparison) {
  const auto t = samples_around(1.0, 0.002);
  CompareSettings allow;
  allow.allow_missing = true;
  const LoadedReport base = report({{"P", {kernel("a", "passed", t), kernel("b", "passed", t)}}});
  const Comparison cut = compare_reports(
      base, report({{"P", {kernel("a", "passed", t), kernel("b", "not_run")}}}), allow);
  EXPECT_EQ(result_for(cut, "b").verdict, Verdict::no_longer_runs);
  EXPECT_TRUE(result_for(cut, "b").regression);
  EXPECT_EQ(cut.exit_code, kExitFailed);

  const Comparison disjoint =
      compare_reports(base, report({{"Q", {kernel("a", "passed", t)}}}), allow);
  EXPECT_EQ(disjoint.regressions, 0);
  EXPECT_EQ(disjoint.exit_code, kExitInconclusive);
  ASSERT_FALSE(disjoint.warnings.empty());
  EXPECT_EQ(disjoint.warnings.back(),
            "no kernel is in both reports (2 in the baseline only, 1 in the candidate only): "
            "nothing was compared");
  EXPECT_EQ(compare_reports(report({}), report({}), CompareSettings{}).exit_code,
            kExitInconclusive);
  // One kernel in common is a comparison.
  EXPECT_EQ(compare_reports(base, report({{"P", {kernel("a", "passed", t)}}}), allow).exit_code,
            kExitOk);
}

// A kernel without a time among timed ones is said, not passed over: its speed was not compared.
TEST(CompareStatusRules, AKernelWithoutATimeAmongTimedOnesIsSaid) {
  const auto t = samples_around(1.0, 0.002);
  const LoadedReport base = report({{"P", {kernel("a", "passed", t), kernel("b", "passed", t)}}});
  const Comparison c = compare_reports(
      base, report({{"P", {kernel("a", "passed", t), kernel("b", "passed")}}}), CompareSettings{});
  EXPECT_EQ(result_for(c, "b").verdict, Verdict::not_timed);
  EXPECT_EQ(c.exit_code, kExitOk);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0],
            "1 of the 2 kernels that passed in both reports were not timed in both (not_timed): "
            "their speed was not compared; --strict fails such a comparison");
}

// A baseline made with `run --torch` holds PyTorch's eager and compiled runs; a gate's run
// without --torch lacks them, which is no regression. A missing kernel of normbench's still is.
TEST(CompareStatusRules, AMissingPyTorchReferenceIsNoRegression) {
  const auto t = samples_around(1.0, 0.002);
  LoadedKernel eager = kernel("torch.eager", "passed", t);
  eager.origin = "PyTorch";
  LoadedKernel plugin = kernel("layer_norm.mine", "passed", t);
  plugin.origin = "mine.so";
  const LoadedReport base = report({{"P", {kernel("ln", "passed", t), eager, plugin}}});
  const LoadedReport cand = report({{"P", {kernel("ln", "passed", t)}}});
  const Comparison c = compare_reports(base, cand, CompareSettings{});
  EXPECT_EQ(result_for(c, "torch.eager").verdict, Verdict::missing);
  EXPECT_FALSE(result_for(c, "torch.eager").regression);
  EXPECT_NE(result_for(c, "torch.eager").note.find("--torch"), std::string::npos);
  EXPECT_TRUE(result_for(c, "layer_norm.mine").regression);
  EXPECT_EQ(c.regressions, 1);
}

TEST(CompareThrottling, ASlowerKernelMostOfWhoseSamplesThrottledIsUndecidedNotPassed) {
  const auto t = samples_around(1.0, 0.002);
  LoadedKernel hot = kernel("hot", "passed", scaled(t, 1.2));
  hot.timing->throttled_samples = 7;  // of 10
  hot.timing->throttle_reasons = "sw_power_cap";
  LoadedKernel few = kernel("few", "passed", scaled(t, 1.2));
  few.timing->throttled_samples = 5;  // half is not most: slower is slower
  const LoadedReport base =
      report({{"P", {kernel("hot", "passed", t), kernel("few", "passed", t)}}});
  const LoadedReport cand = report({{"P", {hot, few}}});
  const Comparison c = compare_reports(base, cand, CompareSettings{});
  const KernelComparison& named = result_for(c, "hot");
  EXPECT_EQ(named.verdict, Verdict::throttled);
  EXPECT_FALSE(named.regression);
  EXPECT_TRUE(named.untested_slowdown);
  EXPECT_EQ(named.note,
            "7 of 10 samples taken while the GPU throttled (sw_power_cap): a slower machine or a "
            "slower kernel, this run cannot tell");
  EXPECT_EQ(result_for(c, "few").verdict, Verdict::slower);
  EXPECT_EQ(c.regressions, 1);
  // Alone, the throttled slowdown decides nothing, and that is no pass: a kernel that throttles
  // the GPU itself must not excuse its own slowdown. Exit 4, with or without --strict.
  const LoadedReport only_hot = report({{"P", {hot}}});
  const LoadedReport base_hot = report({{"P", {kernel("hot", "passed", t)}}});
  const Comparison alone = compare_reports(base_hot, only_hot, CompareSettings{});
  EXPECT_EQ(alone.regressions, 0);
  EXPECT_EQ(alone.untested_slowdowns, 1);
  EXPECT_EQ(alone.exit_code, kExitInconclusive);
  EXPECT_NE(format_compare_table(alone).find("taken while the GPU throttled"), std::string::npos);
  CompareSettings strict;
  strict.strict = true;
  EXPECT_EQ(compare_reports(base_hot, only_hot, strict).exit_code, kExitInconclusive);
  // A throttled candidate that is not slower is judged as any other.
  LoadedKernel hot_same = kernel("hot", "passed", t);
  hot_same.timing->throttled_samples = 7;
  EXPECT_EQ(compare_reports(base_hot, report({{"P", {hot_same}}}), CompareSettings{}).exit_code,
            kExitOk);
  EXPECT_STREQ(to_string(Verdict::throttled), "throttled");
}

TEST(CompareAccuracy, AKernelUsingClearlyMoreOfItsToleranceIsWorthALineAtTheSameSpeed) {
  const auto t = samples_around(1.0, 0.002);
  auto with_use = [&](const std::string& id, double use) {
    LoadedKernel k = kernel(id, "passed", t);
    k.accuracy.push_back({"y", use, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
    return k;
  };
  const LoadedReport base = report({{"P", {with_use("worse", 0.12), with_use("noise", 0.12)}}});
  const LoadedReport cand = report({{"P", {with_use("worse", 0.43), with_use("noise", 0.15)}}});
  const Comparison c = compare_reports(base, cand, CompareSettings{});
  const KernelComparison& worse = result_for(c, "worse");
  EXPECT_EQ(worse.verdict, Verdict::same);
  EXPECT_TRUE(worse.accuracy_worsened);
  EXPECT_EQ(worse.note, "uses 43% of its tolerance, 12% before");
  EXPECT_FALSE(worse.regression);  // still passes: a line, not a failed gate
  EXPECT_FALSE(result_for(c, "noise").accuracy_worsened);  // 3 points: not clearly worse
  EXPECT_EQ(c.exit_code, kExitOk);
  const std::string md = format_compare_markdown(c);
  EXPECT_NE(md.find("#### Changes"), std::string::npos) << md;
  EXPECT_NE(md.find("uses 43% of its tolerance, 12% before"), std::string::npos) << md;
}

TEST(CompareStatusRules, MissingAndNewProblems) {
  const auto t = samples_around(1.0, 0.002);
  const LoadedReport base =
      report({{"A", {kernel("k", "passed", t)}}, {"B", {kernel("k", "passed", t)}}});
  const LoadedReport cand =
      report({{"A", {kernel("k", "passed", t)}}, {"C", {kernel("k", "passed", t)}}});
  const Comparison c = compare_reports(base, cand, CompareSettings{});
  EXPECT_EQ(c.missing_problems, std::vector<std::string>{"B"});
  EXPECT_EQ(c.new_problems, std::vector<std::string>{"C"});
  ASSERT_EQ(c.results.size(), 3u);
  EXPECT_EQ(c.results[0].verdict, Verdict::same);
  EXPECT_EQ(c.results[1].problem, "B");
  EXPECT_EQ(c.results[1].verdict, Verdict::missing);
  EXPECT_EQ(c.results[2].problem, "C");
  EXPECT_EQ(c.results[2].verdict, Verdict::new_kernel);
  EXPECT_EQ(c.exit_code, kExitFailed);
}

TEST(CompareStatusRules, StrictTurnsInconclusiveIntoExitFourUnlessSomethingRegressed) {
  const auto t = samples_around(1.0, 0.002);
  const LoadedReport base = report(
      {{"P", {kernel("few", "passed", samples_around(1.0, 0.01, 3)), kernel("k", "passed", t)}}});
  const LoadedReport cand = report(
      {{"P", {kernel("few", "passed", samples_around(1.0, 0.01, 3)), kernel("k", "passed", t)}}});
  EXPECT_EQ(compare_reports(base, cand, CompareSettings{}).exit_code, kExitOk);
  CompareSettings strict;
  strict.strict = true;
  const Comparison c = compare_reports(base, cand, strict);
  EXPECT_EQ(c.inconclusive, 1);
  EXPECT_EQ(c.exit_code, kExitInconclusive);
  const LoadedReport slower = report({{"P",
                                       {kernel("few", "passed", samples_around(1.0, 0.01, 3)),
                                        kernel("k", "passed", scaled(t, 1.2))}}});
  EXPECT_EQ(compare_reports(base, slower, strict).exit_code, kExitFailed);
}

TEST(CompareStatusRules, AnUntestedSlowdownExitsFourWithoutStrictAndARegressionStillOne) {
  const auto five = samples_around(1.0, 0.001, 5), t = samples_around(1.0, 0.002);
  const LoadedReport base =
      report({{"P", {kernel("few", "passed", five), kernel("k", "passed", t)}}});
  const LoadedReport cand =
      report({{"P", {kernel("few", "passed", scaled(five, 2.0)), kernel("k", "passed", t)}}});
  const Comparison c = compare_reports(base, cand, CompareSettings{});
  EXPECT_EQ(c.regressions, 0);
  EXPECT_EQ(c.untested_slowdowns, 1);
  EXPECT_TRUE(result_for(c, "few").untested_slowdown);
  EXPECT_EQ(c.exit_code, kExitInconclusive);
  EXPECT_NE(format_compare_table(c).find("UNTESTED: 1 kernel slower by the medians"),
            std::string::npos);
  const LoadedReport worse = report(
      {{"P", {kernel("few", "passed", scaled(five, 2.0)), kernel("k", "passed", scaled(t, 1.2))}}});
  EXPECT_EQ(compare_reports(base, worse, CompareSettings{}).exit_code, kExitFailed);
}

// A hand-edited report's absurd median: its change and note in a few digits, not hundreds.
TEST(CompareStatusRules, AnAbsurdRatioPrintsInAFewDigits) {
  const auto five = samples_around(1.0, 0.001, 5), four = samples_around(1.0, 0.001, 4);
  const LoadedReport base = report({{"P", {kernel("k", "passed", five)}}});
  const LoadedReport cand = report({{"P", {kernel("k", "passed", scaled(four, 1e300))}}});
  const std::string table = format_compare_table(compare_reports(base, cand, CompareSettings{}));
  EXPECT_NE(table.find("+1e+302%"), std::string::npos) << table;
  EXPECT_NE(table.find("the medians say 1.00e+300x slower"), std::string::npos) << table;
  EXPECT_EQ(table.find("00000000000000000000"), std::string::npos) << table;
}

TEST(CompareStatusRules, MismatchIsRefusedUnlessAllowed) {
  const auto t = samples_around(1.0, 0.002);
  const auto one_kernel = [&](const std::string& device, const std::string& hash) {
    return report({{"P", {kernel("k", "passed", t)}}}, device, hash);
  };
  const LoadedReport base = one_kernel("NVIDIA H100 80GB HBM3", "h1");
  const LoadedReport other_gpu = one_kernel("NVIDIA A100-SXM4-80GB", "h1");
  const LoadedReport other_config = one_kernel("NVIDIA H100 80GB HBM3", "h2");
  try {
    compare_reports(base, other_gpu, CompareSettings{});
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("NVIDIA A100-SXM4-80GB"), std::string::npos) << what;
    EXPECT_NE(what.find("NVIDIA H100 80GB HBM3"), std::string::npos) << what;
    EXPECT_NE(what.find("--allow-mismatch"), std::string::npos) << what;
  }
  EXPECT_THROW(compare_reports(base, other_config, CompareSettings{}), UsageError);
  CompareSettings allow;
  allow.allow_mismatch = true;
  const Comparison c = compare_reports(base, other_gpu, allow);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("different GPU models"), std::string::npos);
  EXPECT_EQ(c.exit_code, kExitOk);
}

TEST(CompareStatusRules, AProblemChangedUnderTheSameConfigHashIsRefusedUnlessAllowed) {
  const auto t = samples_around(1.0, 0.002);
  LoadedReport base = report({{"P", {kernel("k", "passed", t)}}});
  LoadedReport changed = report({{"P", {kernel("k", "passed", scaled(t, 0.5))}}});
  changed.header.path = "changed.json";
  base.problems[0].identity = {{"op", "layer_norm"}, {"shape", {8, 4096}}};
  changed.problems[0].identity = {{"op", "layer_norm"}, {"shape", {1, 4096}}};
  try {
    compare_reports(base, changed, CompareSettings{});
    FAIL() << "expected a UsageError";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("problem P is not the same problem"), std::string::npos) << what;
    EXPECT_NE(what.find("changed.json"), std::string::npos) << what;
  }
  CompareSettings allow;
  allow.allow_mismatch = true;
  const Comparison c = compare_reports(base, changed, allow);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("not the same problem"), std::string::npos) << c.warnings[0];
}

// ---- JSON output.

TEST(CompareJsonOutput, HasTheDocumentedFields) {
  const auto t = samples_around(1.0, 0.002);
  const LoadedReport base =
      report({{"P", {kernel("k", "passed", t), kernel("gone", "passed", t)}}});
  const LoadedReport cand = report({{"P", {kernel("k", "passed", scaled(t, 1.2))}}});
  const nlohmann::json j = compare_to_json(compare_reports(base, cand, CompareSettings{}));
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["kind"], "normbench-compare");
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["summary"]["regressions"], 2);
  EXPECT_EQ(j["summary"]["result"], "regression");
  EXPECT_EQ(j["summary"]["counts"]["slower"], 1);
  EXPECT_EQ(j["summary"]["counts"]["missing"], 1);
  EXPECT_EQ(j["summary"]["counts"]["same"], 0);
  EXPECT_NEAR(j["settings"]["faster_below"].get<double>(), 1.0 / 1.05, 1e-12);
  const auto& k = j["results"][0];
  EXPECT_EQ(k["verdict"], "slower");
  EXPECT_EQ(k["regression"], true);
  EXPECT_NEAR(k["ratio"].get<double>(), 1.2, 1e-12);
  EXPECT_NEAR(k["change_percent"].get<double>(), 20.0, 1e-9);
  EXPECT_EQ(k["baseline_samples"], 10);
  EXPECT_TRUE(k["p_value"].is_number());
  EXPECT_EQ(k["untested_slowdown"], false);
  EXPECT_EQ(j["summary"]["untested_slowdowns"], 0);
  const auto& gone = j["results"][1];
  EXPECT_EQ(gone["verdict"], "missing");
  EXPECT_TRUE(gone["candidate_status"].is_null());
  EXPECT_TRUE(gone["ratio"].is_null());
  EXPECT_EQ(j["baseline"]["device_name"], "GPU X");
}

}  // namespace
}  // namespace normbench
