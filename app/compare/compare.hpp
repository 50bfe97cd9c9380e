// `normbench compare`: match two run reports by (problem id, kernel id) and decide, for each
// kernel, a verdict (faster, slower, same, inconclusive, failed_now, missing, ...) and whether
// it is a regression. The exact rule is documented at the top of compare.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/results/report_reader.hpp"

namespace normbench {

struct CompareSettings {
  double max_slowdown =
      0.05;             // slower above a median ratio of 1 + this; faster below 1 / (1 + this)
  double alpha = 0.01;  // significance level of the two-sided Mann-Whitney U test
  int min_samples = 5;  // fewer timing samples on either side: inconclusive
  bool allow_missing = false;   // a kernel gone from the candidate is not a regression
  bool allow_mismatch = false;  // compare reports of different GPU models or configs (warns)
  bool strict = false;  // exit 4 when some verdict is inconclusive or not_timed (none regressed)
};

enum class Verdict {
  faster,            // both passed; median ratio < 1/(1+t) and the U test is significant
  slower,            // both passed; median ratio > 1+t and the U test is significant (regression)
  throttled,         // slower by that rule, but most of the candidate's samples were taken while
                     // the GPU throttled: machine or kernel, undecided (no regression; an
                     // untested slowdown, exit 4)
  same,              // both passed; median ratio within [1/(1+t), 1+t]
  inconclusive,      // both passed; too few samples, or a big change that is not significant
  not_timed,         // both passed; one or both reports have no timing for it
  failed_now,        // candidate failed/error, baseline did not (regression)
  fixed,             // baseline failed/error, candidate passed
  still_failing,     // failed/error in both
  no_longer_runs,    // baseline passed, candidate not_supported/skipped (regression unless
                     // allow_missing)
  status_changed,    // any other change of status, e.g. not_supported -> passed
  unchanged_status,  // the same status, neither passed nor failing (e.g. not_supported in both)
  missing,           // in the baseline only (regression unless allow_missing)
  new_kernel,        // in the candidate only ("new"); never a regression
};
inline constexpr Verdict kAllVerdicts[] = {Verdict::slower,           Verdict::throttled,
                                           Verdict::failed_now,       Verdict::missing,
                                           Verdict::no_longer_runs,   Verdict::inconclusive,
                                           Verdict::faster,           Verdict::same,
                                           Verdict::not_timed,        Verdict::fixed,
                                           Verdict::still_failing,    Verdict::status_changed,
                                           Verdict::unchanged_status, Verdict::new_kernel};
const char* to_string(Verdict verdict);

struct TimingComparison {
  size_t baseline_samples = 0;
  size_t candidate_samples = 0;
  double baseline_median_ms = 0.0;
  double candidate_median_ms = 0.0;
  std::optional<double> ratio;  // candidate median / baseline median; none if baseline median is 0
  std::optional<double> p_value;  // none when there are fewer than min_samples on either side
};

struct TimingDecision {
  Verdict verdict = Verdict::inconclusive;  // faster, slower, same or inconclusive
  TimingComparison stats;
  std::string note;  // why inconclusive; empty otherwise
  // Inconclusive, and slower than the threshold by the medians, with samples that could not
  // have shown it: fewer than min_samples, or too few for the test to reach p < alpha at all.
  bool untested_slowdown = false;
};

// The timing rule alone: the verdict for a kernel that passed in both reports.
TimingDecision decide_timing(const std::vector<double>& baseline_ms,
                             const std::vector<double>& candidate_ms,
                             const CompareSettings& settings);

struct KernelComparison {
  std::string problem;
  std::string kernel;
  Verdict verdict = Verdict::same;
  bool regression = false;
  std::optional<KernelStatus> baseline_status;   // none when missing from the baseline
  std::optional<KernelStatus> candidate_status;  // none when missing from the candidate
  std::optional<TimingComparison> timing;        // when both passed and both were timed
  std::string note;                // e.g. the candidate's failure reason, or why inconclusive
  bool untested_slowdown = false;  // TimingDecision::untested_slowdown
  // Both passed, and the candidate uses clearly more of its tolerance than the baseline did
  // (named in the note): worth a line even when the time is the same.
  bool accuracy_worsened = false;
};

// "uses 43% of its tolerance, 12% before": when the candidate's worst output uses at least 1.5
// times the baseline's share and 5 points more; else nothing.
std::optional<std::string> accuracy_worsening(const LoadedKernel& baseline,
                                              const LoadedKernel& candidate);

struct Comparison {
  ReportHeader baseline;
  ReportHeader candidate;
  CompareSettings settings;
  std::vector<std::string> warnings;          // mismatches allowed by allow_mismatch, aborted runs
  std::vector<std::string> missing_problems;  // problem ids in the baseline only
  std::vector<std::string> new_problems;      // problem ids in the candidate only
  std::vector<KernelComparison> results;      // baseline order; new kernels after their problem's
  int regressions = 0;
  int inconclusive = 0;        // with strict, not_timed verdicts too
  int untested_slowdowns = 0;  // inconclusive verdicts with untested_slowdown
  int exit_code = 0;           // 0, 1 (a regression) or 4 (an untested slowdown, nothing in
                               // both reports, or strict and some verdict inconclusive)
};

// Throws UsageError (exit 2) when the device names or config hashes differ, unless
// settings.allow_mismatch (then it adds a warning and goes on).
Comparison compare_reports(const LoadedReport& baseline, const LoadedReport& candidate,
                           const CompareSettings& settings);

}  // namespace normbench
