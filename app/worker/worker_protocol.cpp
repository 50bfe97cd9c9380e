#include "app/worker/worker_protocol.hpp"

#include "app/results/report_writer.hpp"

namespace normbench {

using json = nlohmann::json;

namespace {
json guard_json(const GuardDamage& d) {
  return {d.before_bytes, d.after_bytes, d.before_reach, d.after_reach};
}
GuardDamage guard_from(const json& j) {
  return {j.at(0).get<uint64_t>(), j.at(1).get<uint64_t>(), j.at(2).get<uint64_t>(),
          j.at(3).get<uint64_t>()};
}
json output_guards_json(const std::vector<OutputGuard>& guards) {
  json out = json::array();
  for (const OutputGuard& g : guards) out.push_back({g.output, guard_json(g.damage)});
  return out;
}
std::vector<OutputGuard> output_guards_from(const json& j) {
  std::vector<OutputGuard> guards;
  for (const json& g : j) guards.push_back({g.at(0).get<std::string>(), guard_from(g.at(1))});
  return guards;
}
json operations_json(const std::vector<OperationSummary>& ops) {
  json out = json::array();
  for (const OperationSummary& op : ops)
    out.push_back({to_string(op.kind), op.name, op.stream, op.duration_us, op.pytorch_library});
  return out;
}
std::vector<OperationSummary> operations_from(const json& j) {
  std::vector<OperationSummary> ops;
  for (const json& op : j)
    ops.push_back({operation_kind_from(op.at(0).get<std::string>()), op.at(1), op.at(2), op.at(3),
                   op.at(4).get<bool>()});
  return ops;
}
StopReason stop_from(const std::string& s) {
  return s == "time_limit" ? StopReason::time_limit : StopReason::converged;
}
}  // namespace

json to_json(const KernelPlan& p) {
  return {{"unsupported", p.unsupported ? json(*p.unsupported) : json(nullptr)},
          {"error", p.error ? json(*p.error) : json(nullptr)},
          {"dispatches_to", p.dispatches_to},
          {"workspace_bytes", p.workspace_bytes}};
}

PlanSummary plan_summary_from(const json& j) {
  PlanSummary s;
  if (!j.at("unsupported").is_null()) s.unsupported = j.at("unsupported").get<std::string>();
  if (!j.at("error").is_null()) s.error = j.at("error").get<std::string>();
  s.dispatches_to = j.at("dispatches_to");
  s.workspace_bytes = j.at("workspace_bytes");
  return s;
}

// A GPU travels in the report's own form (report_writer.hpp): one serialization of DeviceInfo.
json to_json(const DeviceInfo& d) {
  return device_json(d);
}

DeviceInfo device_info_from(const json& j) {
  return device_info_from_json(j);
}

json to_json(const DeviceCaps& c) {
  return {{"sm_count", c.sm_count},
          {"cc_major", c.compute_capability_major},
          {"cc_minor", c.compute_capability_minor},
          {"smem_block_optin", c.shared_memory_per_block_optin},
          {"smem_sm", c.shared_memory_per_sm},
          {"max_threads_sm", c.max_threads_per_sm},
          {"cooperative_launch", c.cooperative_launch}};
}

DeviceCaps device_caps_from(const json& j) {
  DeviceCaps c;
  c.sm_count = j.at("sm_count");
  c.compute_capability_major = j.at("cc_major");
  c.compute_capability_minor = j.at("cc_minor");
  c.shared_memory_per_block_optin = j.at("smem_block_optin");
  c.shared_memory_per_sm = j.at("smem_sm");
  c.max_threads_per_sm = j.at("max_threads_sm");
  c.cooperative_launch = j.at("cooperative_launch");
  return c;
}

json to_json(const TimingResult& t) {
  return {{"samples_ms", t.samples_ms},
          {"stop", to_string(t.stop)},
          {"sampling_time_s", t.sampling_time_s},
          {"escaped_us", t.escaped_us},
          {"conditions", t.conditions ? to_message_json(*t.conditions) : json(nullptr)}};
}

TimingResult timing_from(const json& j) {
  TimingResult t;
  t.samples_ms = j.at("samples_ms").get<std::vector<double>>();
  t.stop = stop_from(j.at("stop"));
  t.sampling_time_s = j.at("sampling_time_s");
  t.escaped_us = j.at("escaped_us").get<std::vector<double>>();
  if (!j.at("conditions").is_null())
    t.conditions = sampling_conditions_from_message(j.at("conditions"));
  // Statistics are derived here rather than believed from the message.
  t.summary = summarize(t.samples_ms);
  t.median_interval = median_interval(t.samples_ms);
  return t;
}

json to_json(const CopyBandwidth& c) {
  return {{"bytes_moved", c.bytes_moved}, {"gb_per_s", c.gb_per_s}, {"timing", to_json(c.timing)}};
}

CopyBandwidth copy_bandwidth_from(const json& j) {
  CopyBandwidth c;
  c.bytes_moved = j.at("bytes_moved");
  c.timing = timing_from(j.at("timing"));
  c.gb_per_s = static_cast<double>(c.bytes_moved) / (c.timing.summary.median * 1e6);
  return c;
}

json to_json(const LatencyFloor& f) {
  return {{"bytes_moved", f.bytes_moved},
          {"empty_launch", to_json(f.empty_launch)},
          {"cold", to_json(f.cold)},
          {"warm", to_json(f.warm)}};
}

LatencyFloor latency_floor_from(const json& j) {
  LatencyFloor f;
  f.bytes_moved = j.at("bytes_moved");
  f.empty_launch = timing_from(j.at("empty_launch"));
  f.cold = timing_from(j.at("cold"));
  f.warm = timing_from(j.at("warm"));
  return f;
}

json to_json(const LaunchReport& r) {
  return {{"launch_error", r.launch_error},
          {"escaped_us", r.escaped_us},
          {"output_guards", output_guards_json(r.output_guards)},
          {"workspace_guard", guard_json(r.workspace_guard)},
          {"inputs_unchanged", r.inputs_unchanged},
          {"output_fingerprint", r.output_fingerprint},
          {"activity_escape", r.activity_escape},
          {"activity_strays", r.activity_strays},
          {"operations", operations_json(r.operations)}};
}

LaunchReport launch_report_from(const json& j) {
  LaunchReport r;
  r.launch_error = j.at("launch_error");
  r.escaped_us = j.at("escaped_us");
  r.output_guards = output_guards_from(j.at("output_guards"));
  r.workspace_guard = guard_from(j.at("workspace_guard"));
  r.inputs_unchanged = j.at("inputs_unchanged");
  r.output_fingerprint = j.at("output_fingerprint");
  r.activity_escape = j.at("activity_escape");
  r.activity_strays = j.at("activity_strays");
  r.operations = operations_from(j.at("operations"));
  return r;
}

json to_json(const TimingRequest& r) {
  return {{"cmd", "time"},
          {"kernel", r.kernel},
          {"deterministic", r.deterministic},
          {"verified_fingerprint", r.verified_fingerprint},
          {"saved_sample", r.saved_sample},
          {"fresh_sample", r.fresh_sample},
          {"fresh_seed", r.fresh_seed},
          {"fresh_fingerprint", r.fresh_fingerprint},
          {"check_bounds", r.check_bounds}};
}

TimingRequest timing_request_from(const json& j) {
  TimingRequest r;
  r.kernel = j.at("kernel");
  r.deterministic = j.at("deterministic");
  r.verified_fingerprint = j.at("verified_fingerprint");
  r.saved_sample = j.at("saved_sample");
  r.fresh_sample = j.at("fresh_sample");
  r.fresh_seed = j.at("fresh_seed");
  r.fresh_fingerprint = j.at("fresh_fingerprint");
  r.check_bounds = j.at("check_bounds");
  return r;
}

json to_json(const TimingReport& r) {
  return {{"launch_error", r.launch_error},
          {"timing", to_json(r.timing)},
          {"output_guards", output_guards_json(r.output_guards)},
          {"workspace_guard", guard_json(r.workspace_guard)},
          {"inputs_unchanged", r.inputs_unchanged},
          {"outputs_compared", r.outputs_compared},
          {"first_mismatch", r.first_mismatch},
          {"saved_sample", r.saved_sample},
          {"fresh_samples", r.fresh_samples},
          {"fresh_mismatch", r.fresh_mismatch},
          {"fresh_mismatch_replays", r.fresh_mismatch_replays},
          {"bounds_checked", r.bounds_checked},
          {"bounds_mismatch", r.bounds_mismatch},
          {"bounds_output", r.bounds_output},
          {"bounds_outside", r.bounds_outside},
          {"bounds_first", r.bounds_first},
          {"activity_escape", r.activity_escape},
          {"activity_strays", r.activity_strays},
          {"device_busy_us", r.device_busy_us},
          {"operations", operations_json(r.operations)}};
}

TimingReport timing_report_from(const json& j) {
  TimingReport r;
  r.launch_error = j.at("launch_error");
  if (r.launch_error.empty()) r.timing = timing_from(j.at("timing"));
  r.output_guards = output_guards_from(j.at("output_guards"));
  r.workspace_guard = guard_from(j.at("workspace_guard"));
  r.inputs_unchanged = j.at("inputs_unchanged");
  r.outputs_compared = j.at("outputs_compared");
  r.first_mismatch = j.at("first_mismatch");
  r.saved_sample = j.at("saved_sample");
  r.fresh_samples = j.at("fresh_samples");
  r.fresh_mismatch = j.at("fresh_mismatch");
  r.fresh_mismatch_replays = j.at("fresh_mismatch_replays");
  r.bounds_checked = j.at("bounds_checked");
  r.bounds_mismatch = j.at("bounds_mismatch");
  r.bounds_output = j.at("bounds_output");
  r.bounds_outside = j.at("bounds_outside");
  r.bounds_first = j.at("bounds_first");
  r.activity_escape = j.at("activity_escape");
  r.activity_strays = j.at("activity_strays");
  r.device_busy_us = j.at("device_busy_us").get<std::vector<double>>();
  r.operations = operations_from(j.at("operations"));
  return r;
}

}  // namespace normbench
