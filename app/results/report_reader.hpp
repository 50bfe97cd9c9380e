// The one reader of run reports (normbench run, the PyTorch side's reports): `normbench
// compare` and `normbench report` both load reports here, so both accept the same files and
// give the same messages. Every field they use is checked; fields they do not use are
// ignored, so that reports of newer writers of the same schema version stay readable.
//
// Required: schema_version (1 or 2: 2 adds the not_run status, deterministic and the median's
// interval; the rest reads the same), tool {name}, config {name, hash},
// device (null or {name}), problems[] {id, op, shape, kernels[] {id, status}}; where present,
// timing (null or {median_ms, samples_ms[], ...}, median_ms the median of samples_ms),
// verification (null or {passed}), copy_bandwidth (null or {gb_per_s}), latency_floor (null or
// {empty_launch_ms, cold_ms, warm_ms}), a kernel's floor (null or {ms, bound}), a kernel's
// is_baseline (true or false), a problem's status ("ran" or "skipped"). Problem ids and
// kernel ids within a problem are unique, and a problem's op and shape are those of its entry
// in config.resolved.problems, where the report has one. Optional (added to schema 2 by --devices
// and
// --shard; absent in older reports): devices[] {index, name, copy_bandwidth, latency_floor,
// shard}, a
// kernel's device and shard, and shard {index, count, work[] {problem, kernel, shard, cost}}.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/check/activity_accounting.hpp"
#include "app/results/report_schema.hpp"
#include "app/timing/problem_floor.hpp"

namespace normbench {

struct LoadedTiming {
  double median_ms = 0.0;
  double mean_ms = 0.0;
  double stdev_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  double relative_stdev = 0.0;
  std::string stop_reason;
  std::vector<double> samples_ms;  // one launch each, in order
  // 95% confidence interval of the median (schema 2); empty in older reports.
  std::optional<std::pair<double, double>> median_ci_ms;
  // The GPU's conditions around the samples, where the report has them: how many samples were
  // taken while it throttled, and why; the readings before and after, in words.
  size_t throttled_samples = 0;
  std::string throttle_reasons;
  std::string conditions_text;  // "SM 1980 MHz, memory 2619 MHz, 41 °C, 312 W before; ..."
  bool mostly_throttled() const { return 2 * throttled_samples > samples_ms.size(); }
};

// What the activity trace saw a kernel run: one launch's operations, and the median device
// time of its timed samples' operations.
struct LoadedActivity {
  std::vector<OperationSummary> operations;
  bool from_timing = false;
  std::optional<double> device_median_ms;
  std::string label;   // what a reader should know of them ("only PyTorch's own kernels ran")
  std::string strays;  // operations of no launch call seen before its first launch
};

// An output's accuracy in units of its rule (app/check/accuracy.hpp), the worst of the trials.
struct LoadedAccuracy {
  std::string tensor;
  double tolerance_use = 0.0;
  std::optional<double> ulp_max, ulp_p999, exactly_rounded;  // 16-bit outputs
  std::optional<double> max_abs_error;  // absent from reports of earlier versions
};

struct LoadedKernel {
  std::string id;
  std::string description;
  bool is_baseline = false;
  std::string dispatches_to;  // empty when the report has null
  std::string origin;         // the plugin it came from; empty: built in (or not said)
  KernelStatus status = KernelStatus::skipped;
  std::string reason;                 // empty when the report has null
  std::string warning;                // a passed kernel's warning ("... samples throttled")
  std::optional<bool> deterministic;  // schema 2: two launches gave bitwise identical outputs
  std::optional<bool> verified;       // verification.passed; empty when not verified
  std::optional<double> max_abs_error;
  std::optional<double> max_rel_error;
  std::vector<LoadedAccuracy> accuracy;  // per output, where the report has it
  // Only for a kernel that passed: a kernel that did not pass has no time, whatever the
  // report holds.
  std::optional<LoadedTiming> timing;
  std::optional<double> gb_per_s;
  std::optional<double> percent_of_copy;
  // Its problem's floor on its GPU and the floor over its median, in percent: as the report
  // has them (timed kernels of reports that have them), else as report_model.cpp derives them.
  std::optional<ProblemFloor> floor;
  std::optional<double> percent_of_floor;
  bool suspicious = false;                 // faster than a plain copy of the same bytes
  std::optional<int> device;               // the GPU it ran on (index), when the report says
  std::optional<int> shard;                // in a merged report: the shard that ran it
  std::optional<LoadedActivity> activity;  // when the report has one (traced runs)
};

struct LoadedProblem {
  std::string id;
  std::string op;
  std::string description;
  std::vector<int64_t> shape;
  std::optional<int64_t> min_bytes;
  bool l2_evicted = true;  // its config's timing.flush_l2: which latency floor is its
  bool skipped = false;    // status "skipped": it did not fit in GPU or host memory
  // What makes two problems of one id the same problem: op, shape, the data's format (dtype,
  // layout, param_dtype) and the resolved config without description, timing settings or
  // trial count (identity_difference).
  nlohmann::json identity;
  // A point of a sweep (app/config/sweep.hpp): its family's id and its axis values ({"rows": 8});
  // empty and null otherwise.
  std::string sweep_family;
  nlohmann::json sweep_point;
  std::vector<LoadedKernel> kernels;
};

// A GPU of the run (devices[]).
struct LoadedDevice {
  int index = 0;
  std::string name;
  std::optional<double> copy_gb_per_s;
  std::optional<LatencyFloorMs> latency_floor;
  std::optional<int> shard;  // in a merged report: the shard whose run it belongs to
  std::string untraced;      // why the activity trace was unavailable; empty: traced or not said
  std::string unmonitored;   // why the GPU's conditions were not read; empty: read or not said
};

// Where a report comes from.
struct ReportHeader {
  std::string path;
  int schema_version = 0;
  std::string tool_name;
  std::string tool_version;  // empty when absent
  std::string git_revision;  // empty when absent
  std::string created_at;    // empty when absent
  std::string device_name;   // empty when device is null
  std::optional<double> copy_gb_per_s;
  std::optional<LatencyFloorMs> latency_floor;  // empty in reports older than it
  std::string config_name;
  std::string config_hash;
  std::string aborted;                // empty when the run was not aborted
  std::vector<LoadedDevice> devices;  // empty in reports older than --devices
};

// A pair of a sharded run's plan and the shard it was given to.
struct LoadedWorkItem {
  std::string problem;
  std::string kernel;
  int shard = 1;
  uint64_t cost = 0;
};

// --shard K/N: index K of count N, and the whole plan (each (problem, kernel) once).
struct LoadedShard {
  int index = 1;
  int count = 1;
  std::vector<LoadedWorkItem> work;
};

struct LoadedReport {
  ReportHeader header;
  std::optional<LoadedShard> shard;  // only in the report of a --shard run
  std::vector<LoadedProblem> problems;
};

// The largest report file read. The committed reports are under 0.5 MB for some ten problems
// and 170 kernels; a sweep of thousands of problems, every sample kept, stays in the tens of MB.
// Parsing holds several times the file in memory, so the bound also bounds what a wrong file
// (or /dev/zero) can take.
inline constexpr size_t kMaxReportBytes = size_t{256} << 20;

// Throws UsageError (exit 2) "<path>: <json path>: <what is wrong>; allowed: ...", or
// "<path>: cannot read the report: <why>" / "<path>: not valid JSON: ...".
LoadedReport read_report_file(const std::string& path);
LoadedReport read_report_text(const std::string& text, const std::string& path);
LoadedReport read_report_json(const nlohmann::json& document, const std::string& path);

// The kernel with this id, or nullptr.
// What differs between two identities of one problem id, as held by the reports named
// `first_name` and `second_name` ("its dtype: \"float16\" against \"bfloat16\"", "its inputs:
// only in <first_name>"), or "" where they are the same problem. A field held by one side alone
// differs too: a report without a problem's resolved config cannot show that its inputs and
// tolerance are the other's.
std::string identity_difference(const nlohmann::json& first, const nlohmann::json& second,
                                const std::string& first_name, const std::string& second_name);

const LoadedKernel* find_kernel_in(const LoadedProblem& problem, const std::string& id);

// The copy bandwidth of the GPU `kernel` ran on: its entry of devices[] (matched by index and,
// in a merged report, shard), else the report's copy_bandwidth.
std::optional<double> copy_gb_per_s_of(const ReportHeader& header, const LoadedKernel& kernel);
// The same for its latency floor.
std::optional<LatencyFloorMs> latency_floor_of(const ReportHeader& header,
                                               const LoadedKernel& kernel);

}  // namespace normbench
