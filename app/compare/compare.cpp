// The verdict rule of `normbench compare BASELINE CANDIDATE` (README "Comparing reports").
//
// Refusal. The reports must come from the same tool (tool.name), the same GPU model
// (device.name, a null device counting as its own name) and the same config (config.hash), and a
// problem id in both must name the same problem in both (its identity: op, shape, format and
// resolved config, identity_difference; a field one report holds and the other lacks differs);
// otherwise compare exits 2 naming both values, unless --allow-mismatch, which turns each
// difference into a warning. A report whose
// run was aborted is compared as it is, with a warning.
//
// Matching. Kernels are matched by (problem id, kernel id). Let B and C be a kernel's status in
// the baseline and in the candidate, and t = --max-slowdown (default 0.05).
// clang-format off
//   in the baseline only ............................ missing          regression unless
//                                                                      --allow-missing, or a
//                                                                      PyTorch reference
//                                                                      (run --torch)
//   in the candidate only ........................... new              never a regression
//   B passed, C failed or error ..................... failed_now       regression, always
//   B not_supported or skipped, C failed or error ... failed_now       regression, always
//   B passed, C not_supported or skipped ............ no_longer_runs   regression unless
//                                                                      --allow-missing
//   B passed, C not_run ............................. no_longer_runs   regression, always (the
//                                                                      run was cut short)
//   B failed or error, C passed ..................... fixed
//   B failed or error, C failed or error ............ still_failing
//   B == C, not passed/failed/error ................. unchanged_status
//   any other change (e.g. not_supported -> passed) . status_changed
//   B passed, C passed .............................. the timing rule below
// clang-format on
//
// Timing rule, for a kernel that passed in both reports, on the raw samples (timing.samples_ms):
//   1. Either timing is null (--no-timing)                            -> not_timed
//   2. Fewer than --min-samples (default 5) samples on either side    -> inconclusive, an
//      untested slowdown where the medians' ratio is above 1 + t
//   3. ratio = median(candidate samples) / median(baseline samples), the medians interpolated
//      for an even count; a baseline median of 0                      -> inconclusive
//   4. p = two-sided Mann-Whitney U test of the two sample sets (normal approximation with tie
//      correction and continuity correction 0.5, as scipy.stats.mannwhitneyu(...,
//      method="asymptotic")); significant when p < --alpha (default 0.01).
//   5. ratio > 1 + t:           slower if significant, else inconclusive; an untested slowdown
//                               where no p of these sample counts is below alpha (5 vs 5
//                               samples: 0.012 at best)
//      ratio < 1 / (1 + t):     faster if significant, else inconclusive
//      otherwise (within band): same, whatever p says: a significant change smaller than the
//                               minimum effect is noise for this purpose (clocks, thermals)
//   The faster threshold is the mirror image of the slower one: swapping the two reports swaps
//   faster and slower (5% slower = ratio above 1.05; faster = ratio below 1/1.05 = 0.952).
//
// Exit code: 1 if any verdict is a regression; else 4 if some kernel is an untested slowdown
// (its medians say slower, and its samples could not have shown it: too few of them, or most
// taken while the GPU throttled; a gate that passed it would have been blind, whatever the
// settings), if no kernel is in both reports (nothing compared:
// --allow-missing with disjoint reports, or two empty ones), or with --strict if any verdict is
// inconclusive, not_timed counting as inconclusive then (the gate cannot tell whether a kernel
// without a time got slower); else 0. (Bad usage, an unreadable or malformed report, or a refused
// mismatch: 2, thrown as UsageError.)
#include "app/compare/compare.hpp"

#include <fmt/format.h>

#include <map>

#include "app/compare/mann_whitney.hpp"
#include "app/timing/statistics.hpp"
#include "app/util/errors.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

namespace {
std::string shown_name(const std::string& name) {
  return name.empty() ? "(no device)" : "\"" + shown(name) + "\"";
}

// Each difference refuses the comparison (UsageError: exit 2), or with --allow-mismatch becomes
// a warning.
void refuse_or_warn(const std::vector<std::string>& problems, const CompareSettings& settings,
                    std::vector<std::string>& warnings) {
  if (!settings.allow_mismatch) {
    std::string message = "refusing to compare: ";
    for (size_t i = 0; i < problems.size(); ++i) message += (i ? "; " : "") + problems[i];
    throw UsageError(
        message +
        " (timings are only comparable from the same tool, GPU model, config and problems; "
        "--allow-mismatch compares anyway)");
  }
  for (const auto& p : problems) warnings.push_back(p + " (compared anyway: --allow-mismatch)");
}

void check_match(const ReportHeader& b, const ReportHeader& c, const CompareSettings& settings,
                 std::vector<std::string>& warnings) {
  std::vector<std::string> problems;
  if (b.tool_name != c.tool_name)
    problems.push_back("different tools: baseline " + shown(b.path) + " was written by \"" +
                       shown(b.tool_name) + "\", candidate " + shown(c.path) + " by \"" +
                       shown(c.tool_name) + "\"");
  if (b.device_name != c.device_name)
    problems.push_back("different GPU models: baseline " + shown(b.path) + " ran on " +
                       shown_name(b.device_name) + ", candidate " + shown(c.path) + " on " +
                       shown_name(c.device_name));
  if (b.config_hash != c.config_hash)
    problems.push_back("different configs: baseline " + shown(b.path) + " has config \"" +
                       shown(b.config_name) + "\" hash " + shown(b.config_hash) + ", candidate " +
                       shown(c.path) + " has \"" + shown(c.config_name) + "\" hash " +
                       shown(c.config_hash));
  if (problems.empty()) return;
  refuse_or_warn(problems, settings, warnings);
}

// The same config hash should mean the same problems; a hand-edited, stale or foreign report
// can keep the hash and change a problem, so each problem's identity (op, shape, inputs,
// tolerance: what its resolved config holds beyond id, description, timing and trials) is
// compared too, as `report` and `merge` do.
void check_same_problems(const LoadedReport& baseline, const LoadedReport& candidate,
                         const CompareSettings& settings, std::vector<std::string>& warnings) {
  std::map<std::string, const LoadedProblem*> candidate_problems;
  for (const auto& p : candidate.problems) candidate_problems[p.id] = &p;
  std::vector<std::string> problems;
  for (const auto& bp : baseline.problems) {
    const auto found = candidate_problems.find(bp.id);
    if (found == candidate_problems.end()) continue;
    const std::string differs =
        identity_difference(bp.identity, found->second->identity, "the baseline", "the candidate");
    if (!differs.empty())
      problems.push_back("problem " + shown(bp.id) + " is not the same problem in baseline " +
                         shown(baseline.header.path) + " and candidate " +
                         shown(candidate.header.path) + " (" + differs + ")");
  }
  if (!problems.empty()) refuse_or_warn(problems, settings, warnings);
}

// Only a kernel that passed has a time (report_reader.hpp).
const std::vector<double>* samples_of(const LoadedKernel& k) {
  return k.timing ? &k.timing->samples_ms : nullptr;
}

std::string with_reason(const std::string& text, const std::string& reason) {
  return reason.empty() ? text : text + ": " + reason;
}

std::optional<double> worst_tolerance_use(const LoadedKernel& k) {
  std::optional<double> worst;
  for (const LoadedAccuracy& a : k.accuracy) worst = std::max(worst.value_or(0.0), a.tolerance_use);
  return worst;
}
KernelComparison compare_kernel(const std::string& problem, const LoadedKernel& b,
                                const LoadedKernel& c, const CompareSettings& settings) {
  KernelComparison r;
  r.problem = problem;
  r.kernel = b.id;
  r.baseline_status = b.status;
  r.candidate_status = c.status;
  const bool b_passed = b.status == KernelStatus::passed;
  const bool c_passed = c.status == KernelStatus::passed;
  if (b_passed && c_passed) {
    const std::vector<double>* b_samples = samples_of(b);
    const std::vector<double>* c_samples = samples_of(c);
    if (!b_samples || !c_samples) {
      r.verdict = Verdict::not_timed;
      r.note = !b_samples && !c_samples ? "timed in neither report"
               : !b_samples             ? "not timed in the baseline"
                                        : "not timed in the candidate";
      return r;
    }
    const TimingDecision d = decide_timing(*b_samples, *c_samples, settings);
    r.verdict = d.verdict;
    r.timing = d.stats;
    r.note = d.note;
    r.untested_slowdown = d.untested_slowdown;
    if (auto worse = accuracy_worsening(b, c)) {
      r.accuracy_worsened = true;
      r.note += (r.note.empty() ? "" : "; ") + *worse;
    }
    // Not a regression (the machine may be what got slower), but not a pass either: a kernel
    // that throttles the GPU itself would otherwise excuse its own slowdown.
    if (r.verdict == Verdict::slower && c.timing && c.timing->mostly_throttled()) {
      r.verdict = Verdict::throttled;
      r.untested_slowdown = true;
      r.note = fmt::format(
          "{} of {} samples taken while the GPU throttled ({}): a slower machine or a slower "
          "kernel, this run cannot tell",
          c.timing->throttled_samples, c.timing->samples_ms.size(), c.timing->throttle_reasons);
    }
  } else if (is_failure(c.status) && !is_failure(b.status)) {
    r.verdict = Verdict::failed_now;
    r.note = c.reason;
  } else if (b_passed && is_absent(c.status)) {
    r.verdict = Verdict::no_longer_runs;
    r.note = with_reason(to_string(c.status), c.reason);
  } else if (is_failure(b.status) && c_passed) {
    r.verdict = Verdict::fixed;
  } else if (is_failure(b.status) && is_failure(c.status)) {
    r.verdict = Verdict::still_failing;
    r.note = c.reason;
  } else if (b.status == c.status) {
    r.verdict = Verdict::unchanged_status;
    r.note = c.reason;
  } else {
    r.verdict = Verdict::status_changed;
    r.note = with_reason(std::string(to_string(b.status)) + " -> " + to_string(c.status), c.reason);
  }
  return r;
}

// PyTorch's eager and compiled runs (`run --torch`) are references beside the kernels a gate is
// about: a candidate run without --torch lacks them, which is no regression of normbench's.
bool is_pytorch_reference(const LoadedKernel& k) {
  return k.origin == "PyTorch";
}
constexpr const char* kPyTorchReferenceMissing =
    "PyTorch reference missing from the candidate (run it with --torch to compare it)";

KernelComparison one_sided(const std::string& problem, const LoadedKernel& k, bool in_baseline,
                           const std::string& note) {
  KernelComparison r;
  r.problem = problem;
  r.kernel = k.id;
  r.verdict = in_baseline ? Verdict::missing : Verdict::new_kernel;
  (in_baseline ? r.baseline_status : r.candidate_status) = k.status;
  r.note = note;
  return r;
}
}  // namespace

std::optional<std::string> accuracy_worsening(const LoadedKernel& baseline,
                                              const LoadedKernel& candidate) {
  const auto before = worst_tolerance_use(baseline);
  const auto now = worst_tolerance_use(candidate);
  if (!before || !now || *now < 1.5 * *before || *now - *before < 0.05) return std::nullopt;
  return fmt::format("uses {:.0f}% of its tolerance, {:.0f}% before", 100.0 * *now,
                     100.0 * *before);
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::faster:
      return "faster";
    case Verdict::slower:
      return "slower";
    case Verdict::throttled:
      return "throttled";
    case Verdict::same:
      return "same";
    case Verdict::inconclusive:
      return "inconclusive";
    case Verdict::not_timed:
      return "not_timed";
    case Verdict::failed_now:
      return "failed_now";
    case Verdict::fixed:
      return "fixed";
    case Verdict::still_failing:
      return "still_failing";
    case Verdict::no_longer_runs:
      return "no_longer_runs";
    case Verdict::status_changed:
      return "status_changed";
    case Verdict::unchanged_status:
      return "unchanged_status";
    case Verdict::missing:
      return "missing";
    case Verdict::new_kernel:
      return "new";
  }
  return "unknown";
}

TimingDecision decide_timing(const std::vector<double>& baseline_ms,
                             const std::vector<double>& candidate_ms, const CompareSettings& s) {
  TimingDecision d;
  TimingComparison& t = d.stats;
  t.baseline_samples = baseline_ms.size();
  t.candidate_samples = candidate_ms.size();
  if (!baseline_ms.empty()) t.baseline_median_ms = median(baseline_ms);
  if (!candidate_ms.empty()) t.candidate_median_ms = median(candidate_ms);
  if (t.baseline_median_ms > 0.0) t.ratio = t.candidate_median_ms / t.baseline_median_ms;
  const double slower_above = 1.0 + s.max_slowdown;
  const double faster_below = 1.0 / (1.0 + s.max_slowdown);
  const bool slower_medians = t.ratio && *t.ratio > slower_above;
  const size_t min_samples = static_cast<size_t>(s.min_samples);
  if (baseline_ms.size() < min_samples || candidate_ms.size() < min_samples) {
    d.note = "too few samples (" + std::to_string(baseline_ms.size()) + " vs " +
             std::to_string(candidate_ms.size()) + "; need " + std::to_string(min_samples) + ")";
    if (slower_medians) {
      d.untested_slowdown = true;
      d.note += fmt::format(", though the medians say {:#.3g}x slower", *t.ratio);
    }
    return d;
  }
  t.p_value = mann_whitney_u(baseline_ms, candidate_ms).p_value;
  if (!t.ratio) {
    d.note = "baseline median is 0";
    return d;
  }
  const bool significant = *t.p_value < s.alpha;
  if (*t.ratio > slower_above || *t.ratio < faster_below) {
    const double smallest_p = mann_whitney_smallest_p(baseline_ms.size(), candidate_ms.size());
    if (significant) {
      d.verdict = *t.ratio > slower_above ? Verdict::slower : Verdict::faster;
    } else if (smallest_p >= s.alpha) {
      d.untested_slowdown = slower_medians;
      d.note = fmt::format(
          "change beyond the threshold, and {} vs {} samples cannot reach p < {:g} (their "
          "smallest p is {:.3g})",
          baseline_ms.size(), candidate_ms.size(), s.alpha, smallest_p);
    } else {
      d.note = "change beyond the threshold but not significant (p >= alpha)";
    }
  } else {
    d.verdict = Verdict::same;
  }
  return d;
}

Comparison compare_reports(const LoadedReport& baseline, const LoadedReport& candidate,
                           const CompareSettings& settings) {
  Comparison out;
  out.baseline = baseline.header;
  out.candidate = candidate.header;
  out.settings = settings;
  check_match(baseline.header, candidate.header, settings, out.warnings);
  check_same_problems(baseline, candidate, settings, out.warnings);
  for (const ReportHeader* info : {&baseline.header, &candidate.header})
    if (!info->aborted.empty())
      out.warnings.push_back((info == &baseline.header ? "baseline " : "candidate ") +
                             shown(info->path) +
                             " comes from an aborted run: " + shown(info->aborted));

  std::map<std::string, const LoadedProblem*> candidate_problems;
  for (const auto& p : candidate.problems) candidate_problems[p.id] = &p;
  std::map<std::string, bool> baseline_problem_ids;
  for (const auto& bp : baseline.problems) {
    baseline_problem_ids[bp.id] = true;
    const auto found = candidate_problems.find(bp.id);
    if (found == candidate_problems.end()) {
      out.missing_problems.push_back(bp.id);
      for (const auto& k : bp.kernels)
        out.results.push_back(one_sided(bp.id, k, true, "problem missing from the candidate"));
      continue;
    }
    const LoadedProblem& cp = *found->second;
    std::map<std::string, const LoadedKernel*> candidate_kernels;
    for (const auto& k : cp.kernels) candidate_kernels[k.id] = &k;
    for (const auto& k : bp.kernels) {
      const auto ck = candidate_kernels.find(k.id);
      out.results.push_back(ck == candidate_kernels.end()
                                ? one_sided(bp.id, k, true,
                                            is_pytorch_reference(k)
                                                ? kPyTorchReferenceMissing
                                                : "kernel missing from the candidate")
                                : compare_kernel(bp.id, k, *ck->second, settings));
    }
    std::map<std::string, bool> baseline_kernels;
    for (const auto& k : bp.kernels) baseline_kernels[k.id] = true;
    for (const auto& k : cp.kernels)
      if (!baseline_kernels.count(k.id)) out.results.push_back(one_sided(cp.id, k, false, ""));
  }
  for (const auto& cp : candidate.problems) {
    if (baseline_problem_ids.count(cp.id)) continue;
    out.new_problems.push_back(cp.id);
    for (const auto& k : cp.kernels)
      out.results.push_back(one_sided(cp.id, k, false, "problem new in the candidate"));
  }

  for (auto& r : out.results) {
    const bool reference_missing = r.note == kPyTorchReferenceMissing;
    // not_run: the candidate's run ended before the kernel (a GPU that became unusable), which
    // --allow-missing (meant for runs narrowed by --problem or --kernel) does not excuse.
    const bool cut_short =
        r.verdict == Verdict::no_longer_runs && r.candidate_status == KernelStatus::not_run;
    r.regression = r.verdict == Verdict::slower || r.verdict == Verdict::failed_now || cut_short ||
                   (!settings.allow_missing && !reference_missing &&
                    (r.verdict == Verdict::missing || r.verdict == Verdict::no_longer_runs));
    out.regressions += r.regression ? 1 : 0;
    const bool undecided = r.verdict == Verdict::inconclusive || r.verdict == Verdict::throttled ||
                           (settings.strict && r.verdict == Verdict::not_timed);
    out.inconclusive += undecided ? 1 : 0;
    out.untested_slowdowns += r.untested_slowdown ? 1 : 0;
  }
  // A gate that timed nothing checked correctness only, and one whose reports share no kernel
  // (under --allow-missing, or two empty reports) compared nothing: say so; the latter must not
  // pass.
  size_t not_timed = 0, timed = 0, baseline_only = 0, candidate_only = 0;
  for (const auto& r : out.results) {
    not_timed += r.verdict == Verdict::not_timed ? 1 : 0;
    const bool both_passed =
        r.baseline_status == KernelStatus::passed && r.candidate_status == KernelStatus::passed;
    timed += both_passed && r.verdict != Verdict::not_timed ? 1 : 0;
    baseline_only += r.verdict == Verdict::missing ? 1 : 0;
    candidate_only += r.verdict == Verdict::new_kernel ? 1 : 0;
  }
  if (not_timed > 0 && timed == 0 && !settings.strict)
    out.warnings.push_back(fmt::format(
        "no kernel that passed in both reports was timed in both ({} not_timed: a run with "
        "--no-timing?), so only correctness was compared; --strict fails such a comparison",
        not_timed));
  else if (not_timed > 0 && !settings.strict)
    out.warnings.push_back(fmt::format(
        "{} of the {} kernels that passed in both reports were not timed in both (not_timed): "
        "their speed was not compared; --strict fails such a comparison",
        not_timed, not_timed + timed));
  const bool nothing_compared = baseline_only + candidate_only == out.results.size();
  if (nothing_compared)
    out.warnings.push_back(fmt::format(
        "no kernel is in both reports ({} in the baseline only, {} in the candidate only): "
        "nothing was compared",
        baseline_only, candidate_only));
  const bool undecided =
      out.untested_slowdowns > 0 || nothing_compared || (settings.strict && out.inconclusive > 0);
  out.exit_code = out.regressions > 0 ? kExitFailed : undecided ? kExitInconclusive : kExitOk;
  return out;
}

}  // namespace normbench
