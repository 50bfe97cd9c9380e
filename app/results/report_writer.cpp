#include "app/results/report_writer.hpp"

#include <algorithm>
#include <cmath>

#include "app/util/version.hpp"

namespace normbench {

namespace {
using json = nlohmann::json;

template <typename T>
json optional_json(const std::optional<T>& value) {
  return value ? finite_or_null(*value) : json(nullptr);
}

json mismatch_json(const Mismatch& m) {
  json j = {{"tensor", m.tensor},
            {"index", m.index},
            {"coords", m.coords},
            {"value", finite_or_null(m.value)},
            {"expected", finite_or_null(m.expected)}};
  if (!std::isfinite(m.value))
    j["value_text"] = std::isnan(m.value) ? "nan" : (m.value > 0 ? "inf" : "-inf");
  return j;
}

json accuracy_json(const std::string& tensor, const OutputAccuracy& a) {
  json ulp = nullptr;
  if (a.ulp)
    ulp = {{"max", finite_or_null(a.ulp->max)},
           {"p999", finite_or_null(a.ulp->p999)},
           {"exactly_rounded", finite_or_null(a.ulp->exactly_rounded)}};
  return {{"tensor", tensor},
          {"tolerance_use", finite_or_null(a.tolerance_use)},
          {"max_abs_error", finite_or_null(a.max_abs_error)},
          {"ulp", ulp}};
}

// Per output, the worst over the trials: the most tolerance used, the largest ULP errors, the
// smallest share exactly rounded.
json worst_accuracy_json(const KernelResult& k) {
  std::vector<std::pair<std::string, OutputAccuracy>> worst;
  for (const TrialVerification& t : k.trials)
    for (const TensorCheck& c : t.result.tensors) {
      auto it = std::find_if(worst.begin(), worst.end(),
                             [&](const auto& w) { return w.first == c.tensor; });
      if (it == worst.end()) {
        worst.emplace_back(c.tensor, c.accuracy);
        continue;
      }
      OutputAccuracy& w = it->second;
      w.tolerance_use = std::max(w.tolerance_use, c.accuracy.tolerance_use);
      w.max_abs_error = std::max(w.max_abs_error, c.accuracy.max_abs_error);
      if (w.ulp && c.accuracy.ulp) {
        w.ulp->max = std::max(w.ulp->max, c.accuracy.ulp->max);
        w.ulp->p999 = std::max(w.ulp->p999, c.accuracy.ulp->p999);
        w.ulp->exactly_rounded = std::min(w.ulp->exactly_rounded, c.accuracy.ulp->exactly_rounded);
      }
    }
  json out = json::array();
  for (const auto& [tensor, a] : worst) out.push_back(accuracy_json(tensor, a));
  return out;
}

json trial_json(const TrialVerification& t) {
  const VerificationResult& r = t.result;
  json mismatches = json::array();
  for (const auto& m : r.first_mismatches) mismatches.push_back(mismatch_json(m));
  return {{"trial", t.trial},
          {"seed", t.seed},
          {"passed", r.passed},
          {"checked", r.checked},
          {"violations", r.violations},
          {"nonfinite", r.nonfinite},
          {"max_abs_error", finite_or_null(r.max_abs_error)},
          {"max_rel_error", finite_or_null(r.max_rel_error)},
          {"rel_l2_error", optional_json(r.rel_l2_error)},
          {"inputs_unchanged", r.inputs_unchanged},
          {"first_mismatches", mismatches},
          {"accuracy", [&] {
             json out = json::array();
             for (const TensorCheck& c : r.tensors)
               out.push_back(accuracy_json(c.tensor, c.accuracy));
             return out;
           }()}};
}

json verification_json(const KernelResult& k) {
  if (k.trials.empty()) return nullptr;
  bool passed = true;
  double max_abs = 0.0, max_rel = 0.0;
  int64_t violations = 0;
  json trials = json::array();
  for (const auto& t : k.trials) {
    passed = passed && t.result.passed && t.result.inputs_unchanged;
    max_abs = std::max(max_abs, t.result.max_abs_error);
    max_rel = std::max(max_rel, t.result.max_rel_error);
    violations += t.result.violations;
    trials.push_back(trial_json(t));
  }
  return {{"passed", passed},
          {"violations", violations},
          {"max_abs_error", finite_or_null(max_abs)},
          {"max_rel_error", finite_or_null(max_rel)},
          {"accuracy", worst_accuracy_json(k)},
          {"trials", trials}};
}

json timing_json(const TimingResult& t, const std::optional<TimingChecks>& checks = std::nullopt) {
  const SampleSummary& s = t.summary;
  json j = {{"median_ms", s.median},
            {"median_ci_ms", {t.median_interval.low, t.median_interval.high}},
            {"mean_ms", s.mean},
            {"stdev_ms", s.stdev},
            {"min_ms", s.min},
            {"max_ms", s.max},
            {"relative_stdev", s.relative_stdev()},
            {"samples", s.count},
            {"stop_reason", to_string(t.stop)},
            {"sampling_time_s", t.sampling_time_s},
            {"samples_ms", t.samples_ms}};
  if (checks)
    j["checks"] = {{"outputs_checked", checks->outputs_checked},
                   {"method", checks->method},
                   {"escaped_work_us", checks->escaped_work_us},
                   {"fresh_inputs", checks->fresh_inputs}};
  j["conditions"] = t.conditions ? to_report_json(*t.conditions) : json(nullptr);
  return j;
}

json activity_json(const std::optional<KernelActivity>& a) {
  if (!a) return nullptr;
  json ops = json::array();
  for (const OperationSummary& op : a->operations)
    ops.push_back({{"kind", to_string(op.kind)},
                   {"name", op.name},
                   {"stream", op.stream},
                   {"duration_us", finite_or_null(op.duration_us)}});
  return {{"operations", ops},
          {"from", a->from_timing ? "timed sample" : "checked launch"},
          {"device_median_ms", optional_json(a->device_median_ms)},
          {"strays", a->strays.empty() ? json(nullptr) : json(a->strays)},
          {"label", a->label.empty() ? json(nullptr) : json(a->label)}};
}

json kernel_json(const KernelResult& k) {
  // Only a kernel that passed has a time: whatever else the result holds is not written.
  const bool timed = k.status == KernelStatus::passed && k.timing;
  json j = {{"id", k.id},
            {"description", k.description},
            {"is_baseline", k.is_baseline},
            {"origin", k.origin.empty() ? json(nullptr) : json(k.origin)},
            {"dispatches_to", k.dispatches_to.empty() ? json(nullptr) : json(k.dispatches_to)},
            {"status", to_string(k.status)},
            {"reason", k.reason.empty() ? json(nullptr) : json(k.reason)},
            {"warning", timed && !k.warning.empty() ? json(k.warning) : json(nullptr)},
            {"verification", verification_json(k)},
            {"deterministic", k.deterministic ? json(*k.deterministic) : json(nullptr)},
            {"timing", timed ? timing_json(*k.timing, k.timing_checks) : json(nullptr)},
            {"bandwidth", nullptr},
            {"floor", nullptr},
            {"speedup", nullptr},
            {"device", k.device ? json(*k.device) : json(nullptr)},
            {"activity", activity_json(k.activity)}};
  if (timed && k.bandwidth_gb_per_s) {
    j["bandwidth"] = {{"gb_per_s", finite_or_null(*k.bandwidth_gb_per_s)},
                      {"percent_of_copy", optional_json(k.percent_of_copy)},
                      // Faster than a plain copy of the same bytes means the bytes or the
                      // timing are wrong (e.g. data served from L2).
                      {"suspicious", k.percent_of_copy.value_or(0.0) > 100.0}};
  }
  if (timed && k.floor)
    j["floor"] = {{"ms", finite_or_null(k.floor->ms)},
                  {"bound", to_string(k.floor->bound)},
                  {"percent", optional_json(k.percent_of_floor)}};
  if (!k.baseline_id.empty())
    j["speedup"] = {{"baseline", k.baseline_id},
                    {"vs_baseline", timed ? optional_json(k.speedup_vs_baseline) : json(nullptr)}};
  return j;
}

json problem_json(const ProblemResult& p) {
  const ProblemConfig& c = *p.config;
  json kernels = json::array();
  for (const auto& k : p.kernels) kernels.push_back(kernel_json(k));
  json j = {{"id", c.id},
            {"op", op_name(c.shape.op)},
            {"shape", c.shape.shape},
            {"dtype", dtype_name(c.shape.dtype)},
            {"param_dtype", dtype_name(c.shape.param_dtype)},
            {"layout", layout_name(c.shape.layout)},
            {"num_segments", c.shape.num_segments},
            {"segment_size", c.shape.segment_size},
            {"min_bytes", c.shape.min_bytes()},
            {"config", c.resolved},
            {"status", p.skipped ? "skipped" : "ran"},
            {"reason", p.reason.empty() ? json(nullptr) : json(p.reason)},
            {"kernels", kernels}};
  // Only where it happened: reports of runs whose tensors were written stay as they were.
  if (!p.tensors_error.empty()) j["tensors_error"] = p.tensors_error;
  return j;
}

json settings_json(const RunSettings& s) {
  return {{"problems", s.problem_filter},
          {"kernels", s.kernel_filter},
          {"trials_override", s.trials_override ? json(*s.trials_override) : json(nullptr)},
          {"seed_override", s.seed_override ? json(*s.seed_override) : json(nullptr)},
          {"timing", s.timing},
          {"allow_faster_than_copy", s.allow_faster_than_copy},
          {"isolation", "process"},
          {"device", s.device},
          {"devices", s.devices.empty() ? std::vector<int>{s.device} : s.devices},
          {"allow_mixed_devices", s.allow_mixed_devices},
          {"host_threads", s.threads},
          {"save_tensors", s.save_tensors_dir.empty() ? json(nullptr) : json(s.save_tensors_dir)}};
}

json copy_json(const std::optional<CopyBandwidth>& c) {
  if (!c) return nullptr;
  return {{"bytes_moved", c->bytes_moved},
          {"gb_per_s", c->gb_per_s},
          {"timing", timing_json(c->timing)}};
}

// The medians, which readers use, and every sample of the three launches.
json latency_floor_json(const std::optional<LatencyFloor>& f) {
  if (!f) return nullptr;
  const LatencyFloorMs ms = latency_floor_ms(*f);
  return {{"bytes_moved", f->bytes_moved},
          {"empty_launch_ms", ms.empty_launch_ms},
          {"cold_ms", ms.cold_ms},
          {"warm_ms", ms.warm_ms},
          {"timing",
           {{"empty_launch", timing_json(f->empty_launch)},
            {"cold", timing_json(f->cold)},
            {"warm", timing_json(f->warm)}}}};
}

// Each GPU of the run with the copy bandwidth and latency floor measured on it: a kernel's % of
// copy and % of floor are of its own GPU's. A report built with `device` alone lists that one.
json devices_json(const RunReport& r) {
  std::vector<DeviceRun> runs = r.devices;
  if (runs.empty() && r.device) runs.push_back({*r.device, r.copy_bandwidth, r.latency_floor});
  json devices = json::array();
  for (const DeviceRun& d : runs) {
    json j = device_json(d.info);
    j["copy_bandwidth"] = copy_json(d.copy_bandwidth);
    j["latency_floor"] = latency_floor_json(d.latency_floor);
    devices.push_back(std::move(j));
  }
  return devices;
}

json shard_json(const std::optional<ShardRecord>& shard) {
  if (!shard) return nullptr;
  return {{"index", shard->index}, {"count", shard->count}, {"work", work_json(shard->work)}};
}

json summary_json(const RunReport& r) {
  json counts = {{"kernels", 0}};
  for (KernelStatus s : kAllKernelStatuses) counts[to_string(s)] = 0;
  for (const auto& p : r.problems)
    for (const auto& k : p.kernels) {
      counts["kernels"] = counts["kernels"].get<int>() + 1;
      const char* key = to_string(k.status);
      counts[key] = counts[key].get<int>() + 1;
    }
  return counts;
}
}  // namespace

json device_json(const DeviceInfo& d) {
  return {{"index", d.index},
          {"name", d.name},
          {"sm_count", d.sm_count},
          {"compute_capability", std::to_string(d.compute_capability_major) + "." +
                                     std::to_string(d.compute_capability_minor)},
          {"memory_bytes", d.memory_bytes},
          {"l2_bytes", d.l2_bytes},
          {"memory_clock_khz", d.memory_clock_khz},
          {"memory_bus_width_bits", d.memory_bus_width_bits},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version},
          {"activity_trace",
           {{"available", d.untraced.empty()},
            {"reason", d.untraced.empty() ? json(nullptr) : json(d.untraced)}}},
          {"conditions",
           {{"available", d.unmonitored.empty()},
            {"reason", d.unmonitored.empty() ? json(nullptr) : json(d.unmonitored)}}}};
}

DeviceInfo device_info_from_json(const json& j) {
  DeviceInfo d;
  d.index = j.at("index");
  d.name = j.at("name");
  d.sm_count = j.at("sm_count");
  const std::string cc = j.at("compute_capability");
  const size_t dot = cc.find('.');
  d.compute_capability_major = std::stoi(cc.substr(0, dot));
  d.compute_capability_minor = dot == std::string::npos ? 0 : std::stoi(cc.substr(dot + 1));
  d.memory_bytes = j.at("memory_bytes");
  d.l2_bytes = j.at("l2_bytes");
  d.memory_clock_khz = j.at("memory_clock_khz");
  d.memory_bus_width_bits = j.at("memory_bus_width_bits");
  d.driver_version = j.at("driver_version");
  d.runtime_version = j.at("runtime_version");
  auto why_not = [&](const char* key) {
    const json& state = j.at(key);
    return state.at("available").get<bool>() ? std::string()
                                             : state.at("reason").get<std::string>();
  };
  d.untraced = why_not("activity_trace");
  d.unmonitored = why_not("conditions");
  return d;
}

json work_json(const std::vector<WorkEntry>& work) {
  json items = json::array();
  for (const WorkEntry& w : work)
    items.push_back(
        {{"problem", w.problem}, {"kernel", w.kernel}, {"shard", w.shard}, {"cost", w.cost}});
  return items;
}

json finite_or_null(double value) {
  return std::isfinite(value) ? json(value) : json(nullptr);
}

json report_to_json(const RunReport& r) {
  json problems = json::array();
  for (const auto& p : r.problems) problems.push_back(problem_json(p));
  return {
      {"schema_version", kReportSchemaVersion},
      {"tool", {{"name", "normbench"}, {"version", version()}, {"git_revision", git_revision()}}},
      {"created_at", r.created_at},
      {"command_line", r.command_line},
      {"config",
       {{"name", r.config->name},
        {"source", r.config->source},
        {"hash", r.config->hash},
        {"resolved", r.config->resolved}}},
      {"device", r.device ? device_json(*r.device) : json(nullptr)},
      {"settings", settings_json(r.settings)},
      {"copy_bandwidth", copy_json(r.copy_bandwidth)},
      {"latency_floor", latency_floor_json(r.latency_floor)},
      {"devices", devices_json(r)},
      {"shard", shard_json(r.shard)},
      {"problems", problems},
      {"summary", summary_json(r)},
      {"aborted", r.aborted.empty() ? json(nullptr) : json(r.aborted)},
      {"exit_code", r.exit_code}};
}

}  // namespace normbench
