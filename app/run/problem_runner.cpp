#include "app/run/problem_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <random>

#include "app/check/integrity.hpp"
#include "app/check/verify.hpp"
#include "app/inputs/inputs.hpp"
#include "app/results/tensor_dump.hpp"
#include "app/run/problem_tensors.hpp"
#include "app/util/host_memory.hpp"
#include "reference/normalization_reference.hpp"

namespace normbench {

namespace {

// What the harness keeps of one kernel between its trials.
struct KernelRun {
  const KernelVariant* variant = nullptr;
  KernelResult* result = nullptr;
  bool pending = false;               // supported, and no trial has failed it yet
  uint64_t verified_fingerprint = 0;  // of the last verified output
  uint64_t fresh_fingerprint = 0;     // of the verified output of the fresh inputs (trial T-2)
  std::vector<double> escaped_us;     // of each checked launch outside the timing
};

// What the activity trace saw of a checked launch goes into the kernel's result (the timing's
// replaces it: a timed sample is the launch a reader asks about).
void note_activity(const LaunchReport& launch, const RunContext& ctx, KernelResult& result) {
  if (!ctx.worker.device().untraced.empty()) return;
  const std::string strays = result.activity ? result.activity->strays : "";
  result.activity = KernelActivity{launch.operations, false, std::nullopt,
                                   strays.empty() ? launch.activity_strays : strays, ""};
}

// Why the problem's host tensors do not fit, if they do not.
std::optional<std::string> host_memory_problem(const ProblemShape& shape) {
  const double needed = static_cast<double>(host_bytes_needed(shape));
  const auto available = available_host_memory();
  if (!available || needed <= static_cast<double>(*available)) return std::nullopt;
  return fmt::format("does not fit in host memory: needs {:.2f} GB, {:.2f} GB available",
                     needed / 1e9, static_cast<double>(*available) / 1e9);
}

void fail(KernelRun& k, KernelStatus status, const std::string& reason) {
  k.pending = false;
  k.result->status = status;
  k.result->reason = reason;
}

// Why a checked launch fails the kernel, whatever its output. (Escaped work is judged over all
// of a kernel's launches: a single launch's drain can be slow for reasons of its own.)
std::optional<std::string> launch_failure(const LaunchReport& r) {
  if (!r.activity_escape.empty()) return r.activity_escape;
  if (auto why = guard_failure(r.output_guards, r.workspace_guard)) return why;
  if (!r.inputs_unchanged) return std::string("modified its inputs");
  return std::nullopt;
}

double kernel_timeout(const ProblemConfig& problem) {
  return problem.timing.kernel_timeout_s;
}

void verify_trial(const ProblemConfig& problem, int trial, uint64_t seed,
                  const NormalizationReference& reference, ProblemTensors& tensors,
                  std::vector<KernelRun>& runs, const RunContext& ctx, std::string& dump_error) {
  const int threads = ctx.settings.threads;
  // A tensor file that cannot be written is recorded and ends the problem's dump, not the run.
  const std::string dump_dir =
      ctx.settings.save_tensors_dir.empty() || !dump_error.empty()
          ? ""
          : trial_dump_dir(ctx.settings.save_tensors_dir, problem.id, trial);
  if (!dump_dir.empty())
    save_or_record(dump_error, [&] {
      save_inputs(dump_dir, tensors.inputs());
      save_reference(dump_dir, reference, threads);
    });
  const std::string at = fmt::format("trial {}: ", trial);
  for (KernelRun& k : runs) {
    if (!k.pending) continue;
    ctx.progress.update(fmt::format("{}: trial {}: {}", problem.id, trial, k.result->id));
    LaunchReport launch;
    try {
      launch =
          ctx.worker.launch(static_cast<size_t>(&k - runs.data()), true, kernel_timeout(problem));
    } catch (const WorkerLost& e) {
      fail(k, KernelStatus::error, at + e.what());
      continue;
    }
    if (!launch.launch_error.empty()) {
      fail(k, KernelStatus::error, at + launch.launch_error);
      continue;
    }
    const OutputValues outputs = tensors.decode_outputs(ProblemTensors::Slots::launch, threads);
    TrialVerification tv{trial, seed,
                         verify_outputs(reference, outputs, problem.tolerances(), threads)};
    tv.result.inputs_unchanged = launch.inputs_unchanged;
    k.escaped_us.push_back(launch.escaped_us);
    note_activity(launch, ctx, *k.result);
    if (auto why = launch_failure(launch))
      fail(k, KernelStatus::failed, at + *why);
    else if (!tv.result.passed)
      fail(k, KernelStatus::failed, at + violation_text(tv.result));
    k.fresh_fingerprint = k.verified_fingerprint;  // the trial before this one's
    k.verified_fingerprint = launch.output_fingerprint;
    k.result->trials.push_back(std::move(tv));
    if (!dump_dir.empty() && dump_error.empty())
      save_or_record(dump_error, [&] {
        for (Output output : problem_outputs(problem.shape))
          save_output(dump_dir, output_file_stem(k.result->id, output),
                      tensors.output(output, ProblemTensors::Slots::launch));
      });
  }
}

// A second launch on the same inputs: bitwise the same output or not. Its checks apply too.
void check_determinism(const ProblemConfig& problem, KernelRun& k, size_t index,
                       const RunContext& ctx) {
  try {
    const LaunchReport again = ctx.worker.launch(index, false, kernel_timeout(problem));
    if (!again.launch_error.empty()) return fail(k, KernelStatus::error, again.launch_error);
    note_activity(again, ctx, *k.result);
    if (auto why = launch_failure(again))
      return fail(k, KernelStatus::failed, "second launch: " + *why);
    k.result->deterministic = again.output_fingerprint == k.verified_fingerprint;
    k.escaped_us.push_back(again.escaped_us);
    // The verified outputs were read after the whole device drained, so they are complete;
    // but work that outlasts the stream it was given in every launch was not on that stream.
    const double least = *std::min_element(k.escaped_us.begin(), k.escaped_us.end());
    if (auto why = escaped_work_failure(least)) fail(k, KernelStatus::failed, *why);
  } catch (const WorkerLost& e) {
    fail(k, KernelStatus::error, "second launch: " + std::string(e.what()));
  }
}

// Why the timed launches fail the kernel, if they do. Outputs of a deterministic kernel were
// compared by fingerprint in the worker; those of another kernel are verified here.
// The reference of the fresh inputs (the second-to-last trial's), made when a kernel's timed
// output on them must be verified against it.
class FreshReference {
 public:
  FreshReference(const ProblemConfig& problem, ProblemTensors& tensors, int threads)
      : problem_(problem), tensors_(tensors), threads_(threads) {}
  const NormalizationReference& get() {
    if (!reference_)
      reference_ = std::make_unique<NormalizationReference>(
          problem_.shape, tensors_.fresh_reference_inputs(threads_), threads_);
    return *reference_;
  }

 private:
  const ProblemConfig& problem_;
  ProblemTensors& tensors_;
  int threads_;
  std::unique_ptr<NormalizationReference> reference_;
};

// The tolerance bounds of the last trial's outputs in their shared slots, written when the
// first kernel that is not bitwise deterministic is timed; false where they do not fit in host
// memory.
class ReferenceBounds {
 public:
  ReferenceBounds(const ProblemConfig& problem, ProblemTensors& tensors, int threads)
      : problem_(problem), tensors_(tensors), threads_(threads) {}
  bool written(const NormalizationReference& reference) {
    if (!tried_) written_ = tensors_.encode_bounds(reference, problem_.tolerances(), threads_);
    tried_ = true;
    return written_;
  }

 private:
  const ProblemConfig& problem_;
  ProblemTensors& tensors_;
  int threads_;
  bool tried_ = false, written_ = false;
};

std::string replayed_output(int64_t sample) {
  return fmt::format(
      "the output of timed sample {} belongs to other inputs: fresh inputs were written to the "
      "same addresses before it, and it gave the output of the inputs it had been given before "
      "(a stored output replayed)",
      sample);
}

std::optional<std::string> timing_failure(const ProblemConfig& problem, const TimingReport& r,
                                          const NormalizationReference& reference,
                                          FreshReference& fresh, ProblemTensors& tensors,
                                          const RunContext& ctx, TimingChecks& checks) {
  const TimingResult& t = r.timing;
  if (!r.activity_escape.empty()) return r.activity_escape;
  checks.escaped_work_us = median(t.escaped_us);
  if (auto why = escaped_work_failure(checks.escaped_work_us)) return why;
  if (auto why = guard_failure(r.output_guards, r.workspace_guard)) return why;
  if (!r.inputs_unchanged) return std::string("modified its inputs");
  checks.fresh_inputs = r.fresh_samples;
  if (r.outputs_compared > 0) {
    checks.method = "bitwise";
    checks.outputs_checked = r.outputs_compared;
    if (r.fresh_mismatch >= 0 && r.fresh_mismatch_replays) return replayed_output(r.fresh_mismatch);
    if (r.fresh_mismatch >= 0)
      return fmt::format(
          "the output of timed sample {} is not the verified output of its inputs (fresh inputs "
          "written to the same addresses, which the kernel was verified on in an earlier trial)",
          r.fresh_mismatch);
    if (r.first_mismatch >= 0)
      return fmt::format(
          "the output of timed sample {} is not the verified output (the kernel gave bitwise "
          "identical outputs when verified; every timed sample starts from a poisoned output)",
          r.first_mismatch);
  } else {
    if (r.bounds_mismatch >= 0)
      return fmt::format(
          "timed sample {}: {} elements of {} outside their tolerance (the first at index {}), "
          "checked on the device against the reference's bounds (a kernel that is not bitwise "
          "deterministic has every timed sample checked so)",
          r.bounds_mismatch, r.bounds_outside, r.bounds_output, r.bounds_first);
    checks.method = r.bounds_checked > 0 ? "bounds" : "reference";
    const int threads = ctx.settings.threads;
    auto verify = [&](const NormalizationReference& ref, ProblemTensors::Slots slots) {
      return verify_outputs(ref, tensors.decode_outputs(slots, threads), problem.tolerances(),
                            threads);
    };
    auto failed = [&](const VerificationResult& v, int64_t sample) {
      return fmt::format("timed sample {}: {}", sample, violation_text(v));
    };
    // The saved sample ran on the fresh inputs where there were any.
    const bool saved_fresh = r.fresh_samples > 0;
    if (r.saved_sample >= 0) {
      ++checks.outputs_checked;
      const VerificationResult v =
          verify(saved_fresh ? fresh.get() : reference, ProblemTensors::Slots::sample);
      if (!v.passed) {
        if (saved_fresh && verify(reference, ProblemTensors::Slots::sample).passed)
          return replayed_output(r.saved_sample);
        return failed(v, r.saved_sample);
      }
    }
    const auto last = static_cast<int64_t>(t.samples_ms.size()) - 1;
    if (last != r.saved_sample) {
      ++checks.outputs_checked;
      const VerificationResult v = verify(reference, ProblemTensors::Slots::launch);
      if (!v.passed) return failed(v, last);
    }
    // The bounds covered every sample on these inputs, the last among them; not the one on
    // fresh inputs.
    if (r.bounds_checked > 0)
      checks.outputs_checked = r.bounds_checked + (r.saved_sample >= 0 && saved_fresh ? 1 : 0);
  }
  return std::nullopt;
}

void time_kernel(const ProblemConfig& problem, KernelRun& k, size_t index,
                 const NormalizationReference& reference, FreshReference& fresh,
                 ReferenceBounds& bounds, ProblemTensors& tensors, const RunContext& ctx) {
  TimingRequest request;
  request.kernel = index;
  request.deterministic = k.result->deterministic.value_or(false);
  request.verified_fingerprint = k.verified_fingerprint;
  // Which samples are checked, and which run on the fresh inputs, is drawn here afresh for
  // every kernel: all start from a poisoned output, so a launch cannot tell them apart.
  std::random_device entropy;
  std::mt19937_64 pick((static_cast<uint64_t>(entropy()) << 32) ^ entropy());
  const auto first_samples = static_cast<uint64_t>(std::max(1, problem.timing.min_samples));
  request.fresh_sample = static_cast<int64_t>(pick() % first_samples);
  if (request.deterministic) {
    // Every sample's output is compared bitwise: the fresh ones with the verified output of
    // the fresh inputs, one in kFreshEvery after the first.
    request.fresh_seed = pick() | 1;
    request.fresh_fingerprint = k.fresh_fingerprint;
  } else {
    // One sample among the first min_samples, on the fresh inputs, is verified besides the
    // last; every other sample against the tolerance bounds on the device, where they fit.
    request.saved_sample = request.fresh_sample;
    ctx.progress.update(fmt::format("{}: {}: tolerance bounds", problem.id, k.result->id));
    request.check_bounds = bounds.written(reference);
  }
  TimingReport report;
  try {
    report = ctx.worker.time(request, kernel_timeout(problem));
  } catch (const WorkerLost& e) {
    return fail(k, KernelStatus::error, "while timing: " + std::string(e.what()));
  }
  if (!report.launch_error.empty())
    return fail(k, KernelStatus::error, "while timing: " + report.launch_error);
  if (ctx.worker.device().untraced.empty() && !report.device_busy_us.empty())
    k.result->activity = KernelActivity{
        report.operations, true, median(report.device_busy_us) / 1e3,
        k.result->activity && !k.result->activity->strays.empty() ? k.result->activity->strays
                                                                  : report.activity_strays,
        ""};
  TimingChecks checks;
  if (auto why = timing_failure(problem, report, reference, fresh, tensors, ctx, checks))
    return fail(k, KernelStatus::failed, "while timing: " + *why);
  // The copy floor alone is a check. The latency floor is the time of a launch much like the
  // kernel's own, which a median may tie within the events' resolution: below it shows as more
  // than 100% of the floor, and fails nothing.
  if (ctx.copy_bandwidth && !ctx.settings.allow_faster_than_copy) {
    const CopyFloor floor{problem.shape.read_bytes(), problem.shape.write_bytes(),
                          static_cast<int64_t>(ctx.l2_bytes), problem.timing.flush_l2,
                          ctx.copy_bandwidth->gb_per_s};
    if (auto why = below_copy_floor(report.timing.summary.median, floor))
      return fail(k, KernelStatus::failed, *why);
  }
  k.result->timing = report.timing;
  k.result->timing_checks = checks;
  if (report.timing.conditions)
    if (auto warning = throttle_warning(*report.timing.conditions)) k.result->warning = *warning;
}

void derive_metrics(const ProblemConfig& problem, const RunContext& ctx, ProblemResult& result) {
  const KernelResult* baseline = nullptr;
  for (const auto& k : result.kernels)
    if (k.is_baseline) baseline = &k;
  if (ctx.copy_bandwidth || ctx.latency_floor)
    result.floor = problem_floor(
        problem.shape.min_bytes(),
        ctx.copy_bandwidth ? std::optional<double>(ctx.copy_bandwidth->gb_per_s) : std::nullopt,
        ctx.latency_floor ? std::optional<LatencyFloorMs>(latency_floor_ms(*ctx.latency_floor))
                          : std::nullopt,
        problem.timing.flush_l2);
  for (auto& k : result.kernels) {
    if (baseline) k.baseline_id = baseline->id;
    if (!k.timing) continue;
    const double seconds = k.timing->summary.median * 1e-3;
    k.bandwidth_gb_per_s = static_cast<double>(problem.shape.min_bytes()) / seconds / 1e9;
    if (ctx.copy_bandwidth)
      k.percent_of_copy = 100.0 * *k.bandwidth_gb_per_s / ctx.copy_bandwidth->gb_per_s;
    if (result.floor) {
      k.floor = result.floor;
      k.percent_of_floor = percent_of_floor(*result.floor, k.timing->summary.median);
    }
    if (baseline && baseline->timing)
      k.speedup_vs_baseline = baseline->timing->summary.median / k.timing->summary.median;
  }
}

}  // namespace

KernelResult kernel_result_for(const KernelVariant& variant) {
  KernelResult k;
  k.id = variant.id;
  k.description = variant.description;
  k.is_baseline = variant.is_baseline;
  k.origin = variant.origin;
  return k;
}

int trials_to_run(const ProblemConfig& problem, const RunSettings& settings) {
  const int asked = settings.trials_override.value_or(problem.trials);
  return settings.timing ? std::max(asked, 2) : asked;
}

void run_problem(size_t index, const ProblemConfig& problem,
                 const std::vector<const KernelVariant*>& kernels, const RunContext& ctx,
                 ProblemResult& result) {
  result.config = &problem;
  result.kernels.reserve(kernels.size());
  std::vector<KernelRun> runs;
  for (const KernelVariant* variant : kernels) {
    result.kernels.push_back(kernel_result_for(*variant));
    runs.push_back({variant, &result.kernels.back(), true, 0, 0, {}});
  }

  // The worker plans (planning runs the kernels' own code) and allocates.
  std::optional<std::string> skip = host_memory_problem(problem.shape);
  if (!skip) {
    const WorkerClient::LoadedProblem loaded = ctx.worker.load_problem(index);
    skip = loaded.skip;
    for (size_t i = 0; i < runs.size() && i < loaded.plans.size(); ++i) {
      KernelRun& k = runs[i];
      if (auto crash = loaded.planning_failures.find(i); crash != loaded.planning_failures.end())
        fail(k, KernelStatus::error, crash->second);
      else if (const PlanSummary& plan = loaded.plans[i]; plan.error)
        fail(k, KernelStatus::error, *plan.error);
      else if (plan.unsupported)
        fail(k, KernelStatus::not_supported, *plan.unsupported);
      else
        k.result->dispatches_to = plan.dispatches_to;
    }
  }
  if (skip) {
    result.skipped = true;
    result.reason = *skip;
    for (KernelRun& k : runs)
      if (k.pending) fail(k, KernelStatus::skipped, "problem skipped: " + *skip);
    return;
  }

  // The inputs written here are encoded into the shared memory the worker uploads from.
  ProblemTensors tensors(problem.shape, ctx.shared);
  // The reference of the trial at hand; the last one's also checks the timed outputs.
  std::unique_ptr<NormalizationReference> reference;
  const int trials = trials_to_run(problem, ctx.settings);
  const uint64_t base_seed = ctx.settings.seed_override.value_or(problem.seed);
  for (int trial = 0; trial < trials; ++trial) {
    const uint64_t seed = base_seed + static_cast<uint64_t>(trial);  // fresh inputs each trial
    // Before the last trial's inputs overwrite them, the trial before's become the fresh
    // inputs of the timed samples.
    const bool keep_fresh = trial > 0 && trial == trials - 1;
    if (keep_fresh) tensors.keep_inputs_as_fresh(ctx.settings.threads);
    ctx.progress.update(fmt::format("{}: trial {}: inputs", problem.id, trial));
    fill_inputs(problem, seed, tensors.inputs(), ctx.settings.threads);
    tensors.encode_inputs(ctx.settings.threads);
    // The worker uploads while the harness computes the reference (B: seconds each).
    ctx.worker.begin_upload(keep_fresh);
    ctx.progress.update(fmt::format("{}: trial {}: reference", problem.id, trial));
    reference.reset();
    reference = std::make_unique<NormalizationReference>(problem.shape, tensors.reference_inputs(),
                                                         ctx.settings.threads);
    ctx.worker.finish_upload();
    verify_trial(problem, trial, seed, *reference, tensors, runs, ctx, result.tensors_error);
  }
  for (KernelRun& k : runs)
    if (k.pending) k.result->status = KernelStatus::passed;  // every trial ran and passed

  FreshReference fresh(problem, tensors, ctx.settings.threads);
  ReferenceBounds bounds(problem, tensors, ctx.settings.threads);
  for (size_t i = 0; i < runs.size(); ++i) {
    KernelRun& k = runs[i];
    if (!k.pending) continue;
    ctx.progress.update(fmt::format("{}: {}: second launch", problem.id, k.result->id));
    check_determinism(problem, k, i, ctx);
    if (!k.pending || !ctx.settings.timing) continue;
    ctx.progress.update(fmt::format("{}: timing {}", problem.id, k.result->id));
    time_kernel(problem, k, i, *reference, fresh, bounds, tensors, ctx);
  }
  for (KernelRun& k : runs) {
    std::optional<KernelActivity>& activity = k.result->activity;
    if (k.variant->python_submission && activity && only_pytorch_library(activity->operations))
      activity->label = kOnlyPyTorchLabel;
  }
  derive_metrics(problem, ctx, result);
}

}  // namespace normbench
