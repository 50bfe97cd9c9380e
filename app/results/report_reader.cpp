#include "app/results/report_reader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "app/timing/statistics.hpp"
#include "app/util/json_checks.hpp"
#include "app/util/json_parse.hpp"
#include "app/util/shown_text.hpp"
#include "app/util/text_file.hpp"

namespace normbench {

namespace {

// The copy bandwidth a report may claim, wide enough for any GPU, so that the floors drawn from
// it stay finite (a problem's bytes over 5e-324 GB/s take infinitely long).
constexpr double kLeastCopyGbPerS = 1e-3;  // exclusive: 1 MB/s
constexpr double kMostCopyGbPerS = 1e6;    // a petabyte a second

bool present(const CheckedJson& node, const char* key) {
  return node.has(key) && !node.node().at(key).is_null();
}

std::optional<double> optional_number(const CheckedJson& node, const char* key) {
  if (!present(node, key)) return std::nullopt;
  return node.at(key).as_finite_number();
}

std::string optional_string(const CheckedJson& node, const char* key) {
  return present(node, key) ? node.at(key).as_string() : std::string();
}

void expect_object(const CheckedJson& node, const std::string& what) {
  if (!node.node().is_object())
    node.fail("expected " + what + ", got " + shown(node.node().dump(), 60));
}

// "SM 1980 MHz, memory 2619 MHz, 41 °C, 312 W"
std::string reading_text(const CheckedJson& reading) {
  expect_object(reading, "null or a GPU reading");
  return fmt::format("SM {} MHz, memory {} MHz, {} \u00b0C, {:.0f} W",
                     reading.at("sm_clock_mhz").as_int(0, INT32_MAX),
                     reading.at("memory_clock_mhz").as_int(0, INT32_MAX),
                     reading.at("temperature_c").as_int(-300, INT32_MAX),
                     reading.at("power_w").as_number_at_least(0.0));
}

void read_conditions(const CheckedJson& c, LoadedTiming& r) {
  expect_object(c, "null or a conditions object");
  const CheckedJson marked = c.at("throttled_samples");
  marked.expect_array();
  // Counted as throttled samples: a sample listed twice would count twice, and a list of one
  // sample repeated would turn every slower verdict of compare into "throttled".
  std::set<uint64_t> seen;
  for (size_t i = 0; i < marked.size(); ++i) {
    const uint64_t sample = marked.at(i).as_uint64();
    if (sample >= r.samples_ms.size())
      marked.at(i).fail("is not a sample of this timing; allowed: 0 to " +
                        std::to_string(r.samples_ms.size() - 1));
    if (!seen.insert(sample).second)
      marked.at(i).fail(
          fmt::format("sample {} is listed twice; allowed: each sample once", sample));
  }
  r.throttled_samples = marked.size();
  r.throttle_reasons = optional_string(c, "throttle_reasons");
  std::string text;
  if (present(c, "before")) text = reading_text(c.at("before")) + " before";
  if (present(c, "after"))
    text += (text.empty() ? "" : "; ") + reading_text(c.at("after")) + " after";
  r.conditions_text = text;
}

LoadedTiming read_timing(const CheckedJson& t) {
  expect_object(t, "null or a timing object");
  LoadedTiming r;
  const CheckedJson samples = t.at("samples_ms");
  samples.expect_array();
  if (samples.size() == 0) samples.fail("expected at least one sample");
  // No launch takes 0 ms, and against a median of 0 no slowdown has a ratio: a baseline of
  // zeros would pass every candidate through `compare`.
  for (size_t i = 0; i < samples.size(); ++i)
    r.samples_ms.push_back(samples.at(i).as_number_above(0.0));
  r.median_ms = t.at("median_ms").as_number_above(0.0);
  // The median is what `report` shows and the samples are what `compare` tests: they must
  // tell the same story.
  const double from_samples = median(r.samples_ms);
  if (std::fabs(from_samples - r.median_ms) > 1e-6 * std::max(from_samples, 1e-9))
    t.at("median_ms")
        .fail("is not the median of samples_ms (" + std::to_string(from_samples) +
              "); allowed: the median of the samples");
  const SampleSummary s = summarize(r.samples_ms);
  r.mean_ms = optional_number(t, "mean_ms").value_or(s.mean);
  r.stdev_ms = optional_number(t, "stdev_ms").value_or(s.stdev);
  r.min_ms = optional_number(t, "min_ms").value_or(s.min);
  r.max_ms = optional_number(t, "max_ms").value_or(s.max);
  r.relative_stdev =
      optional_number(t, "relative_stdev").value_or(r.mean_ms > 0.0 ? r.stdev_ms / r.mean_ms : 0.0);
  r.stop_reason = optional_string(t, "stop_reason");
  if (present(t, "median_ci_ms")) {
    const CheckedJson ci = t.at("median_ci_ms");
    ci.expect_array();
    if (ci.size() != 2) ci.fail("expected [low, high]");
    r.median_ci_ms = {ci.at(0).as_number_at_least(0.0), ci.at(1).as_number_at_least(0.0)};
  }
  if (present(t, "conditions")) read_conditions(t.at("conditions"), r);
  return r;
}

LoadedActivity read_activity(const CheckedJson& a) {
  expect_object(a, "null or an activity object");
  LoadedActivity r;
  const CheckedJson ops = a.at("operations");
  ops.expect_array();
  for (size_t i = 0; i < ops.size(); ++i) {
    const CheckedJson op = ops.at(i);
    expect_object(op, "an operation {kind, name, stream, duration_us}");
    const std::string kind = op.at("kind").as_string();
    if (kind != "kernel" && kind != "memcpy" && kind != "memset")
      op.at("kind").fail("unknown kind; allowed: kernel, memcpy, memset");
    r.operations.push_back({operation_kind_from(kind), op.at("name").as_string(),
                            op.at("stream").as_string(),
                            optional_number(op, "duration_us").value_or(0.0)});
  }
  r.from_timing = optional_string(a, "from") == "timed sample";
  r.device_median_ms = optional_number(a, "device_median_ms");
  r.label = optional_string(a, "label");
  r.strays = optional_string(a, "strays");
  return r;
}

// A passed kernel's verification must say so throughout: no element out of tolerance, and
// every trial it lists passed, having checked something. A report whose details contradict its
// status is refused rather than believed (compare and JUnit go by the status).
void check_passed_verification(const CheckedJson& v) {
  const char* allowed = "; allowed for a passed kernel: ";
  const auto no_violations = [&](const CheckedJson& node) {
    if (present(node, "violations") && node.at("violations").as_uint64() != 0)
      node.at("violations")
          .fail(std::to_string(node.at("violations").as_uint64()) + " elements out of tolerance" +
                allowed + "0");
  };
  no_violations(v);
  if (!present(v, "trials")) return;
  const CheckedJson trials = v.at("trials");
  trials.expect_array();
  for (size_t i = 0; i < trials.size(); ++i) {
    const CheckedJson t = trials.at(i);
    expect_object(t, "a trial object {trial, seed, passed, checked, violations...}");
    if (!t.at("passed").as_bool()) t.at("passed").fail(std::string("is false") + allowed + "true");
    no_violations(t);
    if (present(t, "checked") && t.at("checked").as_uint64() == 0)
      t.at("checked").fail(std::string("no element checked") + allowed + "at least one");
  }
}

LoadedKernel read_kernel(const CheckedJson& k) {
  expect_object(k, "a kernel object");
  LoadedKernel r;
  r.id = k.at("id").as_string();
  if (r.id.empty()) k.at("id").fail("expected a non-empty kernel id");
  r.description = optional_string(k, "description");
  // The writers always write it; merge recomputes speedups over it.
  if (k.has("is_baseline")) r.is_baseline = k.at("is_baseline").as_bool();
  r.dispatches_to = optional_string(k, "dispatches_to");
  r.origin = optional_string(k, "origin");
  const CheckedJson status = k.at("status");
  const auto parsed = kernel_status_from_string(status.as_string());
  if (!parsed)
    status.fail("unknown status \"" + shown(status.as_string()) +
                "\"; allowed: " + allowed_kernel_statuses());
  r.status = *parsed;
  r.reason = optional_string(k, "reason");
  r.warning = optional_string(k, "warning");
  if (present(k, "deterministic")) r.deterministic = k.at("deterministic").as_bool();
  if (present(k, "verification")) {
    const CheckedJson v = k.at("verification");
    expect_object(v, "null or a verification object");
    r.verified = v.at("passed").as_bool();
    // A kernel passes only if its outputs did: `compare` and the JUnit output trust the status.
    if (r.status == KernelStatus::passed && !*r.verified)
      v.at("passed").fail("is false for a passed kernel; allowed: true where status is passed");
    if (r.status == KernelStatus::passed) check_passed_verification(v);
    r.max_abs_error = optional_number(v, "max_abs_error");
    r.max_rel_error = optional_number(v, "max_rel_error");
    if (present(v, "accuracy")) {
      const CheckedJson outputs = v.at("accuracy");
      outputs.expect_array();
      for (size_t i = 0; i < outputs.size(); ++i) {
        const CheckedJson a = outputs.at(i);
        expect_object(a, "an accuracy object {tensor, tolerance_use, ulp}");
        LoadedAccuracy loaded;
        loaded.tensor = a.at("tensor").as_string();
        loaded.tolerance_use = optional_number(a, "tolerance_use").value_or(0.0);
        if (present(a, "max_abs_error")) loaded.max_abs_error = optional_number(a, "max_abs_error");
        if (present(a, "ulp")) {
          const CheckedJson u = a.at("ulp");
          expect_object(u, "null or {max, p999, exactly_rounded}");
          loaded.ulp_max = optional_number(u, "max");
          loaded.ulp_p999 = optional_number(u, "p999");
          loaded.exactly_rounded = optional_number(u, "exactly_rounded");
        }
        r.accuracy.push_back(std::move(loaded));
      }
    }
  }
  if (present(k, "timing")) {
    LoadedTiming timing = read_timing(k.at("timing"));
    if (r.status == KernelStatus::passed) r.timing = std::move(timing);
  }
  if (present(k, "bandwidth") && r.timing) {
    const CheckedJson b = k.at("bandwidth");
    expect_object(b, "null or a bandwidth object");
    r.gb_per_s = optional_number(b, "gb_per_s");
    r.percent_of_copy = optional_number(b, "percent_of_copy");
    if (present(b, "suspicious")) r.suspicious = b.at("suspicious").as_bool();
  }
  if (present(k, "floor") && r.timing) {
    const CheckedJson f = k.at("floor");
    expect_object(f, "null or a floor object {ms, bound, percent}");
    const std::string bound = f.at("bound").as_string();
    const std::optional<FloorBound> parsed = floor_bound_from_string(bound);
    if (!parsed)
      f.at("bound").fail("unknown floor \"" + shown(bound) + "\"; allowed: copy, latency");
    r.floor = ProblemFloor{f.at("ms").as_number_above(0.0), *parsed};
    r.percent_of_floor = optional_number(f, "percent");
  }
  if (present(k, "device")) r.device = static_cast<int>(k.at("device").as_int(0, INT32_MAX));
  if (present(k, "shard")) r.shard = static_cast<int>(k.at("shard").as_int(1, kMaxShards));
  if (present(k, "activity")) r.activity = read_activity(k.at("activity"));
  return r;
}

// A report's or a device's copy bandwidth (null where it was not measured).
std::optional<double> read_copy_gb_per_s(const CheckedJson& parent) {
  if (!present(parent, "copy_bandwidth")) return std::nullopt;
  const CheckedJson copy = parent.at("copy_bandwidth");
  expect_object(copy, "null or a copy_bandwidth object");
  return copy.at("gb_per_s").as_number_in(kLeastCopyGbPerS, kMostCopyGbPerS);
}

std::optional<LatencyFloorMs> read_latency_floor(const CheckedJson& parent) {
  if (!present(parent, "latency_floor")) return std::nullopt;
  const CheckedJson f = parent.at("latency_floor");
  expect_object(f, "null or a latency_floor object");
  return LatencyFloorMs{f.at("empty_launch_ms").as_number_above(0.0),
                        f.at("cold_ms").as_number_above(0.0), f.at("warm_ms").as_number_above(0.0)};
}

LoadedDevice read_device(const CheckedJson& d) {
  expect_object(d, "a device object");
  LoadedDevice r;
  r.index = static_cast<int>(d.at("index").as_int(0, INT32_MAX));
  r.name = d.at("name").as_string();
  r.copy_gb_per_s = read_copy_gb_per_s(d);
  r.latency_floor = read_latency_floor(d);
  if (present(d, "shard")) r.shard = static_cast<int>(d.at("shard").as_int(1, kMaxShards));
  if (present(d, "activity_trace")) {
    const CheckedJson trace = d.at("activity_trace");
    expect_object(trace, "null or an activity_trace object {available, reason}");
    if (!trace.at("available").as_bool())
      r.untraced = optional_string(trace, "reason").empty() ? "unavailable"
                                                            : optional_string(trace, "reason");
  }
  if (present(d, "conditions")) {
    const CheckedJson conditions = d.at("conditions");
    expect_object(conditions, "null or a conditions object {available, reason}");
    if (!conditions.at("available").as_bool())
      r.unmonitored = optional_string(conditions, "reason").empty()
                          ? "unavailable"
                          : optional_string(conditions, "reason");
  }
  return r;
}

LoadedShard read_shard(const CheckedJson& s) {
  expect_object(s, "null or a shard object");
  LoadedShard r;
  r.count = static_cast<int>(s.at("count").as_int(1, kMaxShards));
  r.index = static_cast<int>(s.at("index").as_int(1, r.count));
  const CheckedJson work = s.at("work");
  work.expect_array();
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < work.size(); ++i) {
    const CheckedJson w = work.at(i);
    expect_object(w, "a work item {problem, kernel, shard, cost}");
    LoadedWorkItem item;
    item.problem = w.at("problem").as_string();
    item.kernel = w.at("kernel").as_string();
    item.shard = static_cast<int>(w.at("shard").as_int(1, r.count));
    item.cost = w.at("cost").as_uint64();
    if (!seen.insert({item.problem, item.kernel}).second)
      w.fail("the pair " + shown(item.problem) + " / " + shown(item.kernel) + " is planned twice");
    r.work.push_back(std::move(item));
  }
  return r;
}

// The data's format as the report's problem table gives it (every report of schema 2 has it).
constexpr const char* kProblemFormatFields[] = {"dtype", "layout", "param_dtype"};

nlohmann::json problem_identity(const CheckedJson& p, const LoadedProblem& problem) {
  nlohmann::json identity = {{"op", problem.op}, {"shape", problem.shape}};
  for (const char* field : kProblemFormatFields)
    if (present(p, field)) identity[field] = p.at(field).as_string();
  if (present(p, "config")) {
    const CheckedJson config = p.at("config");
    expect_object(config, "null or the problem's resolved config");
    for (const auto& item : config.node().items())
      if (item.key() != "id" && item.key() != "description" && item.key() != "timing" &&
          item.key() != "trials")
        identity[item.key()] = item.value();
  }
  return identity;
}

// The problem's op, shape and format are those of its resolved config (`config` holds one,
// which the problem's identity is made of, and so may the entry of config.resolved.problems with
// its id): a report whose tables and config tell of two different problems is refused.
void check_same_as_config(const CheckedJson& p, const LoadedProblem& r, const CheckedJson& config) {
  if (!config.node().is_object()) return;
  const auto differs = [&](const char* key, const nlohmann::json& value) {
    if (!config.has(key) || config.node().at(key) == value) return;
    p.at(key).fail(shown(value.dump(), 60) + " differs from " + shown(config.at(key).path()) + " " +
                   shown(config.node().at(key).dump(), 60) +
                   "; allowed: the problem's own, in its resolved config");
  };
  differs("op", r.op);
  differs("shape", r.shape);
  for (const char* field : kProblemFormatFields)
    if (present(p, field)) differs(field, p.node().at(field));
}

LoadedProblem read_problem(const CheckedJson& p) {
  expect_object(p, "a problem object");
  LoadedProblem r;
  r.id = p.at("id").as_string();
  if (r.id.empty()) p.at("id").fail("expected a non-empty problem id");
  r.op = p.at("op").as_string();
  r.shape = p.at("shape").as_dims();
  if (present(p, "min_bytes")) r.min_bytes = p.at("min_bytes").as_int(0, INT64_MAX);
  if (p.has("status")) {
    const std::string status = p.at("status").as_string();
    if (status != "ran" && status != "skipped")
      p.at("status").fail("unknown problem status \"" + shown(status) +
                          "\"; allowed: ran, skipped");
    r.skipped = status == "skipped";
  }
  if (present(p, "config") && p.at("config").node().is_object()) {
    const CheckedJson config = p.at("config");
    r.description = optional_string(config, "description");
    if (present(config, "timing") && present(config.at("timing"), "flush_l2"))
      r.l2_evicted = config.at("timing").at("flush_l2").as_bool();
    if (present(config, "sweep")) {
      const CheckedJson sweep = config.at("sweep");
      expect_object(sweep, "a sweep {family, point}");
      r.sweep_family = sweep.at("family").as_string();
      r.sweep_point = sweep.at("point").node();
      if (!r.sweep_point.is_object()) sweep.at("point").fail("expected an object of axis values");
    }
  }
  const CheckedJson kernels = p.at("kernels");
  kernels.expect_array();
  std::set<std::string> ids;
  for (size_t i = 0; i < kernels.size(); ++i) {
    r.kernels.push_back(read_kernel(kernels.at(i)));
    if (!ids.insert(r.kernels.back().id).second)
      kernels.at(i).at("id").fail("duplicate kernel id \"" + shown(r.kernels.back().id) + "\"");
    // A skipped problem set nothing up, so none of its kernels ran to a verdict.
    const KernelStatus status = r.kernels.back().status;
    if (r.skipped && (status == KernelStatus::passed || status == KernelStatus::failed))
      kernels.at(i).at("status").fail(
          "is " + std::string(to_string(status)) +
          " in a skipped problem; allowed there: error, not_supported, skipped, not_run");
  }
  if (present(p, "config")) check_same_as_config(p, r, p.at("config"));
  r.identity = problem_identity(p, r);
  return r;
}

// config.resolved.problems by id, where the report has them.
std::map<std::string, CheckedJson> resolved_problems(const CheckedJson& root) {
  std::map<std::string, CheckedJson> by_id;
  if (!root.has("config") || !root.at("config").has("resolved")) return by_id;
  const CheckedJson resolved = root.at("config").at("resolved");
  if (!resolved.has("problems") || !resolved.node().at("problems").is_array()) return by_id;
  const CheckedJson problems = resolved.at("problems");
  for (size_t i = 0; i < problems.size(); ++i) {
    const CheckedJson problem = problems.at(i);
    if (problem.has("id") && problem.node().at("id").is_string())
      by_id.emplace(problem.node().at("id").get<std::string>(), problem);
  }
  return by_id;
}

ReportHeader read_header(const CheckedJson& root, const std::string& path) {
  ReportHeader h;
  h.path = path;
  const CheckedJson version = root.at("schema_version");
  const std::string supported =
      std::to_string(kOldestReadableSchemaVersion) + " to " + std::to_string(kReportSchemaVersion);
  if (!version.node().is_number_integer())
    version.fail("expected an integer schema_version, got " + shown(version.node().dump(), 60) +
                 "; allowed: " + supported);
  const int64_t v = version.as_int(0, INT32_MAX);
  if (v < kOldestReadableSchemaVersion || v > kReportSchemaVersion)
    version.fail("schema_version " + std::to_string(v) +
                 " is not supported; allowed: " + supported);
  h.schema_version = static_cast<int>(v);
  const CheckedJson tool = root.at("tool");
  expect_object(tool, "a tool object");
  h.tool_name = tool.at("name").as_string();
  h.tool_version = optional_string(tool, "version");
  h.git_revision = optional_string(tool, "git_revision");
  h.created_at = optional_string(root, "created_at");
  const CheckedJson config = root.at("config");
  expect_object(config, "a config object");
  h.config_name = config.at("name").as_string();
  h.config_hash = config.at("hash").as_string();
  const CheckedJson device = root.at("device");
  if (!device.node().is_null()) {
    expect_object(device, "null or a device object");
    h.device_name = device.at("name").as_string();
  }
  h.copy_gb_per_s = read_copy_gb_per_s(root);
  h.latency_floor = read_latency_floor(root);
  h.aborted = optional_string(root, "aborted");
  if (present(root, "devices")) {
    const CheckedJson devices = root.at("devices");
    devices.expect_array();
    for (size_t i = 0; i < devices.size(); ++i) h.devices.push_back(read_device(devices.at(i)));
  }
  return h;
}

// Whether the run timed its kernels (settings.timing; reports that do not say are not held
// to it).
bool timed_run(const CheckedJson& root) {
  return present(root, "settings") && present(root.at("settings"), "timing") &&
         root.at("settings").at("timing").as_bool();
}

// A timed run times every kernel that passes, or fails it (app/run/problem_runner.cpp), so a
// passed kernel without a time there is a report edited after the run: refused, not compared
// as `not_timed`.
void check_passed_kernels_timed(const CheckedJson& p, const LoadedProblem& problem) {
  for (size_t i = 0; i < problem.kernels.size(); ++i)
    if (problem.kernels[i].status == KernelStatus::passed && !problem.kernels[i].timing)
      p.at("kernels").at(i).fail(
          "passed without a timing in a timed run (settings.timing is "
          "true); allowed: a timing object for every passed kernel");
}

}  // namespace

std::string identity_difference(const nlohmann::json& first, const nlohmann::json& second,
                                const std::string& first_name, const std::string& second_name) {
  for (const auto& item : first.items()) {
    const auto other = second.find(item.key());
    if (other == second.end()) return "its " + shown(item.key()) + ": only in " + first_name;
    if (*other != item.value())
      return "its " + shown(item.key()) + ": " + shown(item.value().dump(), 60) + " against " +
             shown(other->dump(), 60);
  }
  for (const auto& item : second.items())
    if (!first.contains(item.key())) return "its " + shown(item.key()) + ": only in " + second_name;
  return "";
}

LoadedReport read_report_json(const nlohmann::json& document, const std::string& path) {
  const CheckedJson root(document, path);
  if (!document.is_object())
    root.fail("expected a normbench report (a JSON object with a schema_version)");
  LoadedReport report;
  report.header = read_header(root, path);
  if (present(root, "shard")) report.shard = read_shard(root.at("shard"));
  const CheckedJson problems = root.at("problems");
  problems.expect_array();
  std::set<std::string> ids;
  const std::map<std::string, CheckedJson> resolved = resolved_problems(root);
  const bool timed = timed_run(root);
  for (size_t i = 0; i < problems.size(); ++i) {
    report.problems.push_back(read_problem(problems.at(i)));
    const auto config = resolved.find(report.problems.back().id);
    if (config != resolved.end())
      check_same_as_config(problems.at(i), report.problems.back(), config->second);
    if (!ids.insert(report.problems.back().id).second)
      problems.at(i).at("id").fail("duplicate problem id \"" + shown(report.problems.back().id) +
                                   "\"");
    if (timed) check_passed_kernels_timed(problems.at(i), report.problems.back());
  }
  return report;
}

LoadedReport read_report_text(const std::string& text, const std::string& path) {
  nlohmann::json document = parse_json_text(text, path);
  // However this ends: a large document's own destructor allocates, which while unwinding from
  // std::bad_alloc would end in std::terminate.
  struct Release {
    nlohmann::json& document;
    ~Release() { release_json(document); }
  } release{document};
  return read_report_json(document, path);
}

LoadedReport read_report_file(const std::string& path) {
  return read_report_text(read_text_file(path, "report", kMaxReportBytes), path);
}

const LoadedKernel* find_kernel_in(const LoadedProblem& problem, const std::string& id) {
  for (const auto& k : problem.kernels)
    if (k.id == id) return &k;
  return nullptr;
}

namespace {
const LoadedDevice* device_of(const ReportHeader& header, const LoadedKernel& kernel) {
  if (kernel.device)
    for (const LoadedDevice& d : header.devices)
      if (d.index == *kernel.device && d.shard == kernel.shard) return &d;
  return nullptr;
}
}  // namespace

std::optional<double> copy_gb_per_s_of(const ReportHeader& header, const LoadedKernel& kernel) {
  const LoadedDevice* d = device_of(header, kernel);
  return d && d->copy_gb_per_s ? d->copy_gb_per_s : header.copy_gb_per_s;
}

std::optional<LatencyFloorMs> latency_floor_of(const ReportHeader& header,
                                               const LoadedKernel& kernel) {
  const LoadedDevice* d = device_of(header, kernel);
  return d && d->latency_floor ? d->latency_floor : header.latency_floor;
}

}  // namespace normbench
