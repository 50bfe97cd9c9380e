// The messages between the harness and its device worker (app/worker/device_worker.hpp), one
// JSON object per line. Requests carry "cmd":
//   open                      -> {device, caps}              opens the GPU of the run
//   copy_bandwidth            -> {copy_bandwidth}
//   latency_floor             -> {latency_floor}
//   problem {index, exclude}  -> {planning: k}... {ok | skip: why, plans}
//                                                             plans and allocates a problem
//   upload {fresh}            -> {ok}                         its inputs from shared memory (and
//                                                             the fresh inputs, if fresh)
//   launch {kernel, save}     -> LaunchReport                 one checked launch
//   time {kernel, ...}        -> {progress}... TimingReport   checked timing
// Any request may instead be answered {fault: why}, after which the worker exits: a CUDA error
// made its context unusable. {error: why, usage: bool} answers a request it cannot serve.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "app/check/integrity.hpp"
#include "app/results/run_result.hpp"
#include "kernels/registry.hpp"

namespace normbench {

// What the harness learns of a kernel's plan (the plan itself stays in the worker: planning
// runs the kernel's own code).
struct PlanSummary {
  std::optional<std::string> unsupported;
  std::optional<std::string> error;  // KernelPlan::error
  std::string dispatches_to;
  size_t workspace_bytes = 0;
};

// One launch into a poisoned output, with guards armed, and what the worker saw of it.
struct LaunchReport {
  std::string launch_error;  // non-empty: the launch was refused (and nothing else is set)
  double escaped_us = 0.0;   // how long the device stayed busy after the stream finished
  std::vector<OutputGuard> output_guards;  // each output's, in order
  GuardDamage workspace_guard;
  bool inputs_unchanged = true;     // (the worker restores changed inputs)
  uint64_t output_fingerprint = 0;  // of every output
  // The activity trace: why an operation of the launch ran outside its timed region (empty:
  // none did, or no trace), and the launch's operations.
  std::string activity_escape;
  std::string activity_strays;  // operations another kernel left behind, seen before this one's
  std::vector<OperationSummary> operations;
};

// What the harness asks of a timing.
struct TimingRequest {
  size_t kernel = 0;
  bool deterministic = false;  // compare each sample's fingerprint with verified_fingerprint
  uint64_t verified_fingerprint = 0;
  int64_t saved_sample = -1;  // otherwise: copy this sample's output to the sample slot
  // Samples on the fresh inputs (uploaded with the last trial's): `fresh_sample`, and after it
  // one in kFreshEvery chosen by a generator seeded with `fresh_seed` (0: no others). A
  // deterministic kernel's output there must have `fresh_fingerprint`, its verified output of
  // those inputs.
  int64_t fresh_sample = -1;
  uint64_t fresh_seed = 0;
  uint64_t fresh_fingerprint = 0;
  // Check every sample on the inputs of the last trial against the tolerance bounds the harness
  // wrote into the shared bounds' slots (a kernel that is not bitwise deterministic).
  bool check_bounds = false;
};
inline constexpr uint64_t kFreshEvery = 8;

// The timing and what the worker saw of the timed launches.
struct TimingReport {
  std::string launch_error;
  TimingResult timing;
  std::vector<OutputGuard> output_guards;
  GuardDamage workspace_guard;
  bool inputs_unchanged = true;
  int outputs_compared = 0;     // samples whose fingerprint was compared (deterministic)
  int64_t first_mismatch = -1;  // the first of those that differed, -1 if none
  int64_t saved_sample = -1;    // the sample in the sample slot, -1 if none; otherwise the
                                // last sample's output is in the output slot
  int fresh_samples = 0;        // samples run on the fresh inputs
  int64_t fresh_mismatch = -1;  // the first of those (deterministic) without its verified output
  bool fresh_mismatch_replays = false;  // ... whose output was the other inputs' verified one
  // With check_bounds: the samples checked against the bounds (none where they did not fit in
  // device memory), and the first outside them (-1 if none): in which output, how many of its
  // elements, the lowest index.
  int bounds_checked = 0;
  int64_t bounds_mismatch = -1;
  std::string bounds_output;
  uint64_t bounds_outside = 0;
  uint64_t bounds_first = 0;
  // The activity trace: the first operation outside its launch's timed region ("timed sample
  // 3: ran 1 kernel on ..."), the device time of each sample's operations, the last sample's
  // operations. Empty without a trace.
  std::string activity_escape;
  std::string activity_strays;
  std::vector<double> device_busy_us;
  std::vector<OperationSummary> operations;
};

nlohmann::json to_json(const KernelPlan& p);
PlanSummary plan_summary_from(const nlohmann::json& j);
nlohmann::json to_json(const DeviceInfo& d);
nlohmann::json to_json(const DeviceCaps& c);
nlohmann::json to_json(const TimingResult& t);
nlohmann::json to_json(const CopyBandwidth& c);
nlohmann::json to_json(const LatencyFloor& f);
nlohmann::json to_json(const LaunchReport& r);
nlohmann::json to_json(const TimingRequest& r);
nlohmann::json to_json(const TimingReport& r);

DeviceInfo device_info_from(const nlohmann::json& j);
DeviceCaps device_caps_from(const nlohmann::json& j);
TimingResult timing_from(const nlohmann::json& j);
CopyBandwidth copy_bandwidth_from(const nlohmann::json& j);
LatencyFloor latency_floor_from(const nlohmann::json& j);
LaunchReport launch_report_from(const nlohmann::json& j);
TimingRequest timing_request_from(const nlohmann::json& j);
TimingReport timing_report_from(const nlohmann::json& j);

}  // namespace normbench
