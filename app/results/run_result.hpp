// What a `normbench run` found: the data model behind the JSON report and the table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/check/activity_accounting.hpp"
#include "app/check/verify.hpp"
#include "app/config/config.hpp"
#include "app/device/device_info.hpp"
#include "app/results/report_schema.hpp"
#include "app/timing/problem_floor.hpp"
#include "app/timing/timing_result.hpp"

namespace normbench {

struct TrialVerification {
  int trial = 0;
  uint64_t seed = 0;
  VerificationResult result;
};

// What the harness checked of the timed launches (besides their guards and inputs).
struct TimingChecks {
  int outputs_checked = 0;  // timed samples whose output was checked
  // "bitwise": each sample's fingerprint against the verified output's (a deterministic kernel);
  // "bounds": each sample against the reference's tolerance bounds on the device, one on fresh
  // inputs verified on the host; "reference": two samples verified on the host (the bounds did
  // not fit in memory).
  std::string method;
  double escaped_work_us = 0.0;  // median of TimingResult::escaped_us
  int fresh_inputs = 0;          // samples run on fresh inputs written to the same addresses
};

// What the activity trace saw a kernel run (app/check/activity_accounting.hpp).
struct KernelActivity {
  // One launch's device operations: the last timed sample's, else the last checked launch's.
  std::vector<OperationSummary> operations;
  bool from_timing = false;
  // Median over the timed samples of the device time its operations took (overlaps once).
  std::optional<double> device_median_ms;
  // Operations enqueued by no launch call that the trace saw before this kernel's first launch
  // while another kernel's launch came last: not charged to it, reported.
  std::string strays;
  std::string label;  // what a reader should know of them (kOnlyPyTorchLabel), else empty
};

struct KernelResult {
  std::string id;
  std::string description;
  bool is_baseline = false;
  std::string dispatches_to;  // a dispatching variant's choice for this problem, else empty
  std::string origin;         // the plugin the kernel came from; empty: built into normbench
  KernelStatus status = KernelStatus::not_run;
  std::string reason;  // why not passed: failed verification, not supported, error, skipped
  // What a reader should know of a passed kernel's time ("62 of 100 samples taken while the
  // GPU throttled (sw_power_cap)"); empty if nothing.
  std::string warning;
  std::vector<TrialVerification> trials;
  // Two launches on the same inputs gave bitwise identical outputs; unknown when the kernel
  // did not pass verification.
  std::optional<bool> deterministic;
  std::optional<TimingResult> timing;
  std::optional<TimingChecks> timing_checks;
  std::optional<double> bandwidth_gb_per_s;   // min bytes / median time
  std::optional<double> percent_of_copy;      // of the run's measured copy bandwidth
  std::optional<ProblemFloor> floor;          // its problem's, on its GPU (when timed)
  std::optional<double> percent_of_floor;     // floor / median
  std::optional<double> speedup_vs_baseline;  // baseline median / this median
  std::string baseline_id;                    // the op's naive kernel
  std::optional<int> device;                  // the GPU it ran on; empty: it never reached one
  std::optional<KernelActivity> activity;     // empty: not traced
};

struct ProblemResult {
  const ProblemConfig* config = nullptr;
  bool skipped = false;
  std::string reason;  // why skipped
  std::vector<KernelResult> kernels;
  std::optional<int> device;          // the GPU whose harness ran it; empty: never started
  std::optional<ProblemFloor> floor;  // on that GPU; empty when not timing
  // Why --save-tensors stopped writing this problem's tensors (the first failed file); empty:
  // none failed.
  std::string tensors_error;
};

struct RunSettings {
  std::vector<std::string> problem_filter;  // empty: all
  std::vector<std::string> kernel_filter;   // empty: all
  std::optional<int> trials_override;
  std::optional<uint64_t> seed_override;
  bool timing = true;
  int device = 0;            // the first of `devices`
  std::vector<int> devices;  // --devices, resolved; empty: {device}
  bool allow_mixed_devices = false;
  int threads = 1;  // host threads of the whole run (each GPU's harness: device_schedule.hpp)
  bool allow_faster_than_copy = false;  // a median below the copy floor warns instead of failing
  std::string save_tensors_dir;         // empty: none
};

// A GPU of the run and the copy bandwidth and latency floor measured on it (null when not
// timing).
struct DeviceRun {
  DeviceInfo info;
  std::optional<CopyBandwidth> copy_bandwidth;
  std::optional<LatencyFloor> latency_floor;
};

// One (problem, kernel) pair of a sharded run's plan and the shard it was given to
// (app/run/work_plan.hpp).
struct WorkEntry {
  std::string problem;
  std::string kernel;
  int shard = 1;      // 1-based
  uint64_t cost = 0;  // expected, in MiB moved per trial
};

// --shard K/N: which shard this run is, and the whole plan, every shard's pairs, so that
// `normbench merge` can prove that the shards' reports cover it without gaps or overlaps.
struct ShardRecord {
  int index = 1;
  int count = 1;
  std::vector<WorkEntry> work;
};

struct RunReport {
  std::string created_at;  // ISO 8601, UTC
  std::vector<std::string> command_line;
  const RunConfig* config = nullptr;
  RunSettings settings;
  std::optional<DeviceInfo> device;             // the first GPU (readers of one GPU read this)
  std::optional<CopyBandwidth> copy_bandwidth;  // measured on the first GPU
  std::optional<LatencyFloor> latency_floor;    // measured on the first GPU
  std::vector<DeviceRun> devices;               // every GPU of the run, the first included
  std::optional<ShardRecord> shard;
  std::vector<ProblemResult> problems;
  std::string aborted;  // non-empty: the run stopped early, and why
  int exit_code = 0;
};

// After the run stopped early (report.aborted says why): every kernel whose trials did not all
// run, or (in a timed run) that passed them but was not timed yet, becomes `not_run` with that
// reason and no timing, and the problems never reached are added, their kernels `not_run` too.
void mark_unfinished(RunReport& report, std::vector<ProblemResult> never_reached);

// The exit code a finished run deserves: 3 if aborted or some --save-tensors file could not be
// written, 1 if any kernel failed or errored, else 0.
int exit_code_for(const RunReport& report);

}  // namespace normbench
