// The JSON report (schema_version 1), the exit code of a run and the summary table, on a
// hand-built RunReport; the H100 fixture pins the report's field names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "app/render/report_table.hpp"
#include "app/results/report_reader.hpp"
#include "app/results/report_writer.hpp"
#include "app/util/errors.hpp"
#include "app/util/json_text.hpp"
#include "app/util/version.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using nlohmann::json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

const RunConfig& test_config() {
  static const RunConfig config = parse_config(R"({"name": "unit", "problems": [
      {"id": "ln", "op": "layer_norm", "shape": [4, 8], "normalized_shape": [8]},
      {"id": "gn", "op": "group_norm", "shape": [2, 4, 3], "groups": 2}]})",
                                               "src/unit.json");
  return config;
}

TimingResult timing(std::vector<double> samples) {
  TimingResult t;
  t.samples_ms = samples;
  t.summary = summarize(samples);
  t.median_interval = median_interval(samples);
  t.stop = StopReason::converged;
  t.sampling_time_s = 0.25;
  return t;
}

KernelResult kernel(std::string id, KernelStatus status, std::string reason = "") {
  KernelResult k;
  k.id = std::move(id);
  k.description = "test kernel";
  k.status = status;
  k.reason = std::move(reason);
  return k;
}

TrialVerification trial(int index, bool passed, double max_abs, double max_rel,
                        std::optional<double> rel_l2) {
  TrialVerification t;
  t.trial = index;
  t.seed = 42 + static_cast<uint64_t>(index);
  t.result.passed = passed;
  t.result.checked = 32;
  t.result.max_abs_error = max_abs;
  t.result.max_rel_error = max_rel;
  t.result.rel_l2_error = rel_l2;
  return t;
}

// One kernel of every status, a skipped problem, a device and a copy bandwidth.
RunReport sample_report() {
  RunReport r;
  r.created_at = "2025-01-02T03:04:05Z";
  r.command_line = {"normbench", "run", "--config", "src/unit.json"};
  r.config = &test_config();
  r.settings.threads = 4;
  r.settings.trials_override = 2;
  DeviceInfo device;
  device.name = "Test GPU";
  device.sm_count = 132;
  device.compute_capability_major = 9;
  device.l2_bytes = 50 << 20;
  r.device = device;
  CopyBandwidth copy;
  copy.bytes_moved = 2000000;
  copy.timing = timing({1.0, 1.0, 1.0});
  copy.gb_per_s = 2000.0;
  r.copy_bandwidth = copy;
  LatencyFloor latency;
  latency.bytes_moved = 1024;
  latency.empty_launch = timing({0.0018, 0.0018, 0.0019});
  latency.cold = timing({0.0029, 0.0029, 0.0030});
  latency.warm = timing({0.0021, 0.0021, 0.0022});
  r.latency_floor = latency;

  ProblemResult ln;
  ln.config = &r.config->problems[0];
  // 320 bytes take 0.16 ns at 2000 GB/s: the latency floor (L2 evicted) binds.
  ln.floor = ProblemFloor{0.0029, FloorBound::latency};
  KernelResult naive = kernel("layer_norm.naive", KernelStatus::passed);
  naive.is_baseline = true;
  naive.trials = {trial(0, true, 1e-7, 2e-6, 3e-8), trial(1, true, 2e-7, 1e-6, 4e-8)};
  naive.timing = timing({2.0, 4.0, 3.0});
  naive.timing->conditions = SamplingConditions{
      GpuReading{1980, 2619, 41, 312.5, clock_event::kGpuIdle},
      GpuReading{1755, 2619, 84, 699.0, clock_event::kSwPowerCap},
      {clock_event::kSwPowerCap, clock_event::kGpuIdle, clock_event::kSwPowerCap}};
  naive.warning = "2 of 3 samples taken while the GPU throttled (sw_power_cap)";
  naive.timing_checks = TimingChecks{3, "bitwise", 4.0, 1};
  naive.deterministic = true;
  naive.bandwidth_gb_per_s = 50.0;
  naive.percent_of_copy = 2.5;
  naive.floor = ln.floor;
  naive.percent_of_floor = 100.0 * 0.0029 / 3.0;
  naive.speedup_vs_baseline = 1.0;
  naive.baseline_id = "layer_norm.naive";
  naive.activity = KernelActivity{
      {{OperationKind::kernel, "layer_norm_rows<float>", "given", 2.9}}, true, 0.0029, "", ""};
  ln.kernels.push_back(naive);

  KernelResult fast = kernel("layer_norm.fast", KernelStatus::failed, "2 of 32 elements differ");
  TrialVerification bad = trial(0, false, kNaN, kInf, std::nullopt);
  bad.result.violations = 2;
  bad.result.nonfinite = 1;
  bad.result.first_mismatches = {{3, {0, 3}, std::numeric_limits<float>::quiet_NaN(), 0.5},
                                 {9, {1, 1}, -std::numeric_limits<float>::infinity(), -0.25}};
  fast.trials = {bad};
  fast.timing = timing({0.5});  // a failed kernel's timing is never written, whatever it holds
  fast.speedup_vs_baseline = 6.0;
  fast.floor = ln.floor;  // nor its floor
  fast.baseline_id = "layer_norm.naive";
  ln.kernels.push_back(fast);
  ln.kernels.push_back(kernel("layer_norm.warp", KernelStatus::not_supported, "row too long"));
  r.problems.push_back(ln);

  ProblemResult gn;
  gn.config = &r.config->problems[1];
  gn.kernels.push_back(kernel("group_norm.naive", KernelStatus::error, "illegal address"));
  gn.kernels.push_back(kernel("group_norm.other", KernelStatus::skipped, "after an error"));
  KernelResult side = kernel("group_norm.side_stream", KernelStatus::failed,
                             "ran 1 kernel on another stream: spin, 1.1 us");
  side.activity = KernelActivity{{{OperationKind::kernel, "spin", "other", 1.1},
                                  {OperationKind::memset, "memset 4.1 KB", "given", 0.5}},
                                 false,
                                 std::nullopt,
                                 "1 operation enqueued by no launch call: copy, 2.0 us",
                                 ""};
  gn.kernels.push_back(side);

  r.problems.push_back(gn);

  ProblemResult skipped;
  skipped.config = &r.config->problems[1];
  skipped.skipped = true;
  skipped.reason = "needs 9 GB";
  r.problems.push_back(skipped);
  r.exit_code = exit_code_for(r);
  return r;
}

std::set<std::string> keys(const json& object) {
  std::set<std::string> out;
  for (const auto& item : object.items()) out.insert(item.key());
  return out;
}

TEST(Report, TopLevel) {
  const RunReport r = sample_report();
  const json j = report_to_json(r);
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(keys(j), (std::set<std::string>{"schema_version", "tool", "created_at", "command_line",
                                            "config", "device", "settings", "copy_bandwidth",
                                            "latency_floor", "devices", "shard", "problems",
                                            "summary", "aborted", "exit_code"}));
  EXPECT_EQ(j["tool"]["name"], "normbench");
  EXPECT_EQ(j["tool"]["version"], version());
  EXPECT_EQ(j["tool"]["git_revision"], git_revision());
  EXPECT_EQ(j["created_at"], "2025-01-02T03:04:05Z");
  EXPECT_EQ(j["command_line"], json({"normbench", "run", "--config", "src/unit.json"}));
  EXPECT_EQ(j["config"]["name"], "unit");
  EXPECT_EQ(j["config"]["source"], "src/unit.json");
  EXPECT_EQ(j["config"]["hash"], test_config().hash);
  EXPECT_EQ(j["config"]["resolved"], test_config().resolved);
  EXPECT_EQ(j["device"]["name"], "Test GPU");
  EXPECT_EQ(j["device"]["compute_capability"], "9.0");
  EXPECT_EQ(j["settings"]["host_threads"], 4);
  EXPECT_EQ(j["settings"]["trials_override"], 2);
  EXPECT_TRUE(j["settings"]["seed_override"].is_null());
  EXPECT_TRUE(j["settings"]["save_tensors"].is_null());
  EXPECT_EQ(j["copy_bandwidth"]["gb_per_s"], 2000.0);
  EXPECT_EQ(j["copy_bandwidth"]["timing"]["samples"], 3);
  // The medians readers use, and every sample of the three launches.
  EXPECT_EQ(j["latency_floor"]["bytes_moved"], 1024);
  EXPECT_EQ(j["latency_floor"]["empty_launch_ms"], 0.0018);
  EXPECT_EQ(j["latency_floor"]["cold_ms"], 0.0029);
  EXPECT_EQ(j["latency_floor"]["warm_ms"], 0.0021);
  EXPECT_EQ(j["latency_floor"]["timing"]["warm"]["samples_ms"], json({0.0021, 0.0021, 0.0022}));
  // One GPU: devices[] is that one with its copy bandwidth and latency floor; not sharded.
  ASSERT_EQ(j["devices"].size(), 1u);
  EXPECT_EQ(j["devices"][0]["name"], "Test GPU");
  EXPECT_EQ(j["devices"][0]["copy_bandwidth"], j["copy_bandwidth"]);
  EXPECT_EQ(j["devices"][0]["latency_floor"], j["latency_floor"]);
  EXPECT_EQ(j["settings"]["devices"], json({0}));
  EXPECT_EQ(j["settings"]["allow_mixed_devices"], false);
  EXPECT_TRUE(j["shard"].is_null());
  EXPECT_TRUE(j["aborted"].is_null());
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["summary"], json({{"kernels", 6},
                                {"not_run", 0},
                                {"passed", 1},
                                {"failed", 2},
                                {"error", 1},
                                {"skipped", 1},
                                {"not_supported", 1}}));
  // The report must be serializable as strict JSON and read back unchanged.
  EXPECT_EQ(json::parse(j.dump()), j);
}

// --devices and --shard: every GPU with its own copy bandwidth, each kernel's GPU, the shard
// and the whole plan; the one reader reads them back.
TEST(Report, DevicesAndShardAreWrittenAndReadBack) {
  RunReport r = sample_report();
  r.problems.pop_back();  // a second problem "gn", which the reader would refuse
  DeviceInfo second = *r.device;
  second.index = 1;
  CopyBandwidth other = *r.copy_bandwidth;
  other.gb_per_s = 1500.0;
  LatencyFloor slower = *r.latency_floor;
  slower.cold = timing({0.0035});
  r.devices = {{*r.device, r.copy_bandwidth, r.latency_floor}, {second, other, slower}};
  r.settings.devices = {0, 1};
  r.problems[0].kernels[0].device = 1;
  r.shard =
      ShardRecord{2, 3, {{"ln", "layer_norm.naive", 2, 10}, {"gn", "group_norm.naive", 1, 7}}};
  const json j = report_to_json(r);
  EXPECT_EQ(j["devices"][1]["index"], 1);
  EXPECT_EQ(j["devices"][1]["copy_bandwidth"]["gb_per_s"], 1500.0);
  EXPECT_EQ(j["settings"]["devices"], json({0, 1}));
  EXPECT_EQ(j["problems"][0]["kernels"][0]["device"], 1);
  EXPECT_TRUE(j["problems"][0]["kernels"][1]["device"].is_null());
  EXPECT_EQ(j["shard"], json::parse(R"({"index": 2, "count": 3, "work": [
      {"problem": "ln", "kernel": "layer_norm.naive", "shard": 2, "cost": 10},
      {"problem": "gn", "kernel": "group_norm.naive", "shard": 1, "cost": 7}]})"));

  const LoadedReport loaded = read_report_json(j, "multi.json");
  ASSERT_EQ(loaded.header.devices.size(), 2u);
  EXPECT_EQ(loaded.header.devices[1].copy_gb_per_s, 1500.0);
  const LoadedKernel& naive = loaded.problems[0].kernels[0];
  EXPECT_EQ(naive.device, 1);
  EXPECT_EQ(copy_gb_per_s_of(loaded.header, naive), 1500.0);  // its own GPU's
  EXPECT_EQ(copy_gb_per_s_of(loaded.header, loaded.problems[0].kernels[1]), 2000.0);
  EXPECT_EQ(latency_floor_of(loaded.header, naive)->cold_ms, 0.0035);
  EXPECT_EQ(latency_floor_of(loaded.header, loaded.problems[0].kernels[1])->cold_ms, 0.0029);
  ASSERT_TRUE(loaded.shard);
  EXPECT_EQ(loaded.shard->index, 2);
  EXPECT_EQ(loaded.shard->count, 3);
  ASSERT_EQ(loaded.shard->work.size(), 2u);
  EXPECT_EQ(loaded.shard->work[1].kernel, "group_norm.naive");
  EXPECT_EQ(loaded.shard->work[1].cost, 7u);

  // A shard object that contradicts itself is refused, naming the path.
  json bad = j;
  bad["shard"]["work"][1]["shard"] = 4;
  EXPECT_THROW(read_report_json(bad, "bad.json"), UsageError);
  bad = j;
  bad["shard"]["work"][1]["kernel"] = "layer_norm.naive";
  bad["shard"]["work"][1]["problem"] = "ln";
  try {
    read_report_json(bad, "bad.json");
    ADD_FAILURE() << "a pair planned twice was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: /shard/work/1: the pair ln / "
                                         "layer_norm.naive is planned twice"),
              std::string::npos)
        << e.what();
  }
}

// The latency floor and a kernel's floor read back as written; a report older than them loads
// without them, and one of an unknown bound is refused naming its path.
TEST(Report, FloorsAreReadBackAndOptional) {
  RunReport r = sample_report();
  r.problems.pop_back();  // a second problem "gn", which the reader would refuse
  const json j = report_to_json(r);
  const LoadedReport loaded = read_report_json(j, "floor.json");
  ASSERT_TRUE(loaded.header.latency_floor);
  EXPECT_EQ(loaded.header.latency_floor->empty_launch_ms, 0.0018);
  EXPECT_EQ(loaded.header.latency_floor->cold_ms, 0.0029);
  EXPECT_EQ(loaded.header.latency_floor->warm_ms, 0.0021);
  ASSERT_EQ(loaded.header.devices.size(), 1u);
  ASSERT_TRUE(loaded.header.devices[0].latency_floor);
  EXPECT_EQ(loaded.header.devices[0].latency_floor->warm_ms, 0.0021);
  EXPECT_TRUE(loaded.problems[0].l2_evicted);
  const LoadedKernel& naive = loaded.problems[0].kernels[0];
  ASSERT_TRUE(naive.floor);
  EXPECT_EQ(naive.floor->ms, 0.0029);
  EXPECT_EQ(naive.floor->bound, FloorBound::latency);
  ASSERT_TRUE(naive.percent_of_floor);
  EXPECT_DOUBLE_EQ(*naive.percent_of_floor, 100.0 * 0.0029 / 3.0);

  json old = j;
  old.erase("latency_floor");
  old["devices"][0].erase("latency_floor");
  old["problems"][0]["kernels"][0].erase("floor");
  old["problems"][0]["config"]["timing"]["flush_l2"] = false;
  const LoadedReport before = read_report_json(old, "old.json");
  EXPECT_FALSE(before.header.latency_floor);
  EXPECT_FALSE(before.header.devices[0].latency_floor);
  EXPECT_FALSE(before.problems[0].kernels[0].floor);
  EXPECT_FALSE(before.problems[0].kernels[0].percent_of_floor);
  EXPECT_FALSE(before.problems[0].l2_evicted);
  json nulls = j;
  nulls["latency_floor"] = nullptr;
  nulls["problems"][0]["kernels"][0]["floor"] = nullptr;
  EXPECT_FALSE(read_report_json(nulls, "nulls.json").header.latency_floor);

  json bad = j;
  bad["problems"][0]["kernels"][0]["floor"]["bound"] = "magic";
  try {
    read_report_json(bad, "bad.json");
    ADD_FAILURE() << "an unknown floor was accepted";
  } catch (const UsageError& e) {
    EXPECT_TRUE(testing::contains(e.what(),
                                  "bad.json: /problems/0/kernels/0/floor/bound: unknown floor "
                                  "\"magic\"; allowed: copy, latency"))
        << e.what();
  }
  bad = j;
  bad["latency_floor"]["cold_ms"] = 0.0;
  EXPECT_THROW(read_report_json(bad, "bad.json"), UsageError);
}

TEST(Report, ProblemsAndKernels) {
  const json j = report_to_json(sample_report());
  const json& ln = j["problems"][0];
  EXPECT_EQ(ln["id"], "ln");
  EXPECT_EQ(ln["op"], "layer_norm");
  EXPECT_EQ(ln["num_segments"], 4);
  EXPECT_EQ(ln["segment_size"], 8);
  EXPECT_EQ(ln["min_bytes"], 4 * (2 * 32 + 2 * 8));
  EXPECT_EQ(ln["status"], "ran");
  EXPECT_EQ(ln["config"], test_config().problems[0].resolved);

  const json& naive = ln["kernels"][0];
  EXPECT_EQ(naive["status"], "passed");
  EXPECT_TRUE(naive["reason"].is_null());
  EXPECT_EQ(naive["is_baseline"], true);
  EXPECT_EQ(naive["verification"]["passed"], true);
  EXPECT_EQ(naive["verification"]["max_abs_error"], 2e-7);  // worst over trials
  EXPECT_EQ(naive["verification"]["trials"][1]["seed"], 43);
  EXPECT_EQ(naive["verification"]["trials"][0]["rel_l2_error"], 3e-8);
  EXPECT_EQ(naive["timing"]["median_ms"], 3.0);
  EXPECT_EQ(naive["timing"]["stdev_ms"], 1.0);
  EXPECT_EQ(naive["timing"]["samples_ms"], json({2.0, 4.0, 3.0}));
  EXPECT_EQ(naive["timing"]["stop_reason"], "converged");
  EXPECT_EQ(naive["timing"]["median_ci_ms"], json({2.0, 4.0}));
  EXPECT_EQ(naive["timing"]["checks"], json({{"outputs_checked", 3},
                                             {"method", "bitwise"},
                                             {"escaped_work_us", 4.0},
                                             {"fresh_inputs", 1}}));
  EXPECT_EQ(naive["deterministic"], true);
  EXPECT_EQ(naive["bandwidth"]["suspicious"], false);
  EXPECT_EQ(naive["bandwidth"]["percent_of_copy"], 2.5);
  EXPECT_EQ(naive["floor"],
            json({{"ms", 0.0029}, {"bound", "latency"}, {"percent", 100.0 * 0.0029 / 3.0}}));
  EXPECT_EQ(naive["speedup"], json({{"baseline", "layer_norm.naive"}, {"vs_baseline", 1.0}}));

  const json& fast = ln["kernels"][1];
  EXPECT_EQ(fast["status"], "failed");
  EXPECT_EQ(fast["reason"], "2 of 32 elements differ");
  EXPECT_TRUE(fast["timing"].is_null());
  EXPECT_TRUE(fast["bandwidth"].is_null());
  EXPECT_TRUE(fast["floor"].is_null());
  EXPECT_TRUE(fast["deterministic"].is_null());
  EXPECT_EQ(fast["verification"]["passed"], false);
  EXPECT_EQ(fast["verification"]["violations"], 2);
  // NaN and Inf have no JSON spelling: they become null.
  const json& bad = fast["verification"]["trials"][0];
  EXPECT_TRUE(bad["max_abs_error"].is_null());
  EXPECT_TRUE(bad["max_rel_error"].is_null());
  EXPECT_TRUE(bad["rel_l2_error"].is_null());
  EXPECT_EQ(bad["nonfinite"], 1);
  const json& mismatch = bad["first_mismatches"][0];
  EXPECT_EQ(mismatch["index"], 3);
  EXPECT_EQ(mismatch["coords"], json({0, 3}));
  EXPECT_TRUE(mismatch["value"].is_null());
  EXPECT_EQ(mismatch["value_text"], "nan");
  EXPECT_EQ(mismatch["expected"], 0.5);
  EXPECT_EQ(bad["first_mismatches"][1]["value_text"], "-inf");

  const json& warp = ln["kernels"][2];
  EXPECT_EQ(warp["status"], "not_supported");
  EXPECT_EQ(warp["reason"], "row too long");
  EXPECT_TRUE(warp["verification"].is_null());
  EXPECT_TRUE(warp["timing"].is_null());
  EXPECT_TRUE(warp["bandwidth"].is_null());
  EXPECT_TRUE(warp["speedup"].is_null());

  EXPECT_EQ(j["problems"][1]["kernels"][0]["status"], "error");
  EXPECT_EQ(j["problems"][1]["kernels"][1]["status"], "skipped");
  EXPECT_EQ(j["problems"][2]["status"], "skipped");
  EXPECT_EQ(j["problems"][2]["reason"], "needs 9 GB");
}

TEST(Report, ChangedInputsFailVerification) {
  RunReport r = sample_report();
  r.problems[0].kernels[0].trials[1].result.inputs_unchanged = false;
  const json j = report_to_json(r);
  EXPECT_EQ(j["problems"][0]["kernels"][0]["verification"]["passed"], false);
  EXPECT_EQ(j["problems"][0]["kernels"][0]["verification"]["trials"][1]["inputs_unchanged"], false);
}

TEST(Report, SuspiciousOnlyAboveTheCopyBandwidth) {
  RunReport r = sample_report();
  r.problems[0].kernels[0].percent_of_copy = 100.0;  // as fast as a copy: plausible
  EXPECT_EQ(report_to_json(r)["problems"][0]["kernels"][0]["bandwidth"]["suspicious"], false);
  r.problems[0].kernels[0].percent_of_copy = 100.5;  // (with --allow-faster-than-copy)
  EXPECT_EQ(report_to_json(r)["problems"][0]["kernels"][0]["bandwidth"]["suspicious"], true);
}

TEST(Report, FiniteOrNull) {
  EXPECT_EQ(finite_or_null(1.5), 1.5);
  EXPECT_EQ(finite_or_null(0.0), 0.0);
  EXPECT_TRUE(finite_or_null(kNaN).is_null());
  EXPECT_TRUE(finite_or_null(kInf).is_null());
  EXPECT_TRUE(finite_or_null(-kInf).is_null());
}

TEST(Report, AbortedRunWithoutDevice) {
  RunReport r;
  r.config = &test_config();
  r.aborted = "CUDA error: out of memory";
  r.exit_code = exit_code_for(r);
  const json j = report_to_json(r);
  EXPECT_EQ(j["aborted"], "CUDA error: out of memory");
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_TRUE(j["device"].is_null());
  EXPECT_TRUE(j["copy_bandwidth"].is_null());
  EXPECT_TRUE(j["latency_floor"].is_null());
  EXPECT_EQ(j["problems"], json::array());
  EXPECT_EQ(j["summary"]["kernels"], 0);
}

TEST(Report, ExitCodeFor) {
  RunReport r;
  EXPECT_EQ(exit_code_for(r), 0);
  ProblemResult p;
  p.kernels = {kernel("a", KernelStatus::passed), kernel("b", KernelStatus::not_supported),
               kernel("c", KernelStatus::skipped)};
  r.problems = {p};
  EXPECT_EQ(exit_code_for(r), 0);
  r.problems[0].kernels.push_back(kernel("d", KernelStatus::failed));
  EXPECT_EQ(exit_code_for(r), 1);
  r.problems[0].kernels.back().status = KernelStatus::error;
  EXPECT_EQ(exit_code_for(r), 1);
  r.aborted = "lost the device";
  EXPECT_EQ(exit_code_for(r), 3);  // an abort outranks a failure
}

// A tensor file that could not be written is the problem's, in its report; the run ends 3
// (its output is incomplete) with the report written.
TEST(Report, TensorsThatCouldNotBeWrittenAreReportedNotLost) {
  RunReport r = sample_report();
  EXPECT_FALSE(report_to_json(r)["problems"][0].contains("tensors_error"));
  r.problems[0].tensors_error = "t/ln/trial0/x.npy: write failed: No space left on device";
  EXPECT_EQ(exit_code_for(r), 3);
  const json j = report_to_json(r);
  EXPECT_EQ(j["problems"][0]["tensors_error"],
            "t/ln/trial0/x.npy: write failed: No space left on device");
}

// Strings from argv and plugins need not be UTF-8; the report must still be written.
TEST(Report, TextThatIsNotUtf8IsWrittenReplaced) {
  RunReport r = sample_report();
  r.command_line = {"normbench", "run", "--config", "odd\xff.json"};
  r.problems[0].kernels[0].description = "plugin text \xc3";
  const std::string text = json_text(report_to_json(r));
  const json back = json::parse(text);
  EXPECT_EQ(back["command_line"][3], "odd\xef\xbf\xbd.json");
  EXPECT_EQ(back["problems"][0]["kernels"][0]["description"], "plugin text \xef\xbf\xbd");
}

TEST(Report, AnUnfinishedRunSaysWhichKernelsDidNotRun) {
  RunReport r = sample_report();
  r.aborted = "the device worker failed twice on upload: crashed: SIGKILL";
  // A kernel that was still in its trials when the run stopped, timing left over included.
  KernelResult midway = kernel("layer_norm.midway", KernelStatus::not_run);
  midway.timing = TimingResult{};
  r.problems[0].kernels.push_back(midway);
  // One that passed its trials, but the run stopped before its timing: not a pass of a timed run.
  KernelResult untimed = kernel("layer_norm.untimed", KernelStatus::passed);
  untimed.timing.reset();
  r.problems[0].kernels.insert(r.problems[0].kernels.end() - 1, untimed);
  ProblemResult unreached;
  unreached.config = &r.config->problems[0];
  unreached.kernels = {kernel("layer_norm.later", KernelStatus::not_run)};
  mark_unfinished(r, {unreached});
  const json j = report_to_json(r);
  const json& kept = j["problems"][0]["kernels"];
  EXPECT_EQ(kept[0]["status"], "passed");  // what ran keeps its result
  const json& stopped = kept.back();
  EXPECT_EQ(stopped["status"], "not_run");
  EXPECT_EQ(stopped["reason"],
            "not run: the run stopped early (the device worker failed twice on upload: crashed: "
            "SIGKILL)");
  EXPECT_TRUE(stopped["timing"].is_null());
  EXPECT_EQ(kept[kept.size() - 2]["status"], "not_run");
  EXPECT_EQ(kept[kept.size() - 2]["reason"], stopped["reason"]);
  EXPECT_EQ(j["problems"].back()["kernels"][0]["status"], "not_run");
  EXPECT_EQ(j["summary"]["not_run"], 3);
  EXPECT_EQ(exit_code_for(r), 3);
}

TEST(Report, KernelStatusNames) {
  EXPECT_STREQ(to_string(KernelStatus::passed), "passed");
  EXPECT_STREQ(to_string(KernelStatus::failed), "failed");
  EXPECT_STREQ(to_string(KernelStatus::not_supported), "not_supported");
  EXPECT_STREQ(to_string(KernelStatus::error), "error");
  EXPECT_STREQ(to_string(KernelStatus::skipped), "skipped");
  EXPECT_STREQ(to_string(KernelStatus::not_run), "not_run");
  for (KernelStatus s : kAllKernelStatuses) EXPECT_EQ(kernel_status_from_string(to_string(s)), s);
}

TEST(Report, SameFieldNamesAsTheH100Fixture) {
  const json fixture = json::parse(
      testing::read_text(testing::source_path("tests/fixtures/h100_kernelbench_v1.json")));
  const json j = report_to_json(sample_report());
  // The fixture is schema 1; schema 2 adds fields, named here, and removes none.
  EXPECT_EQ(fixture["schema_version"], 1);
  EXPECT_EQ(j["schema_version"], 2);
  auto fixture_top = keys(fixture);
  fixture_top.insert({"devices", "shard"});  // --devices and --shard, optional for readers
  fixture_top.insert("latency_floor");       // optional for readers
  EXPECT_EQ(fixture_top, keys(j));
  EXPECT_EQ(keys(fixture["config"]), keys(j["config"]));
  auto fixture_device = keys(fixture["device"]);
  fixture_device.insert("activity_trace");  // whether the device's work was traced
  fixture_device.insert("conditions");      // whether its clocks and throttling were read
  EXPECT_EQ(fixture_device, keys(j["device"]));
  auto fixture_settings = keys(fixture["settings"]);
  fixture_settings.insert(
      {"allow_faster_than_copy", "isolation", "devices", "allow_mixed_devices"});
  EXPECT_EQ(fixture_settings, keys(j["settings"]));
  EXPECT_EQ(keys(fixture["copy_bandwidth"]), keys(j["copy_bandwidth"]));
  auto fixture_summary = keys(fixture["summary"]);
  fixture_summary.insert("not_run");
  EXPECT_EQ(fixture_summary, keys(j["summary"]));
  auto fixture_problem = keys(fixture["problems"][0]);
  fixture_problem.insert({"dtype", "param_dtype", "layout"});  // schema 2: element types, layout
  EXPECT_EQ(fixture_problem, keys(j["problems"][0]));
  const json& fixture_kernel = fixture["problems"][0]["kernels"][0];
  const json& kernel_json = j["problems"][0]["kernels"][0];
  // Fields added to schema_version 1 since the fixture was recorded: optional for readers.
  auto fixture_kernel_keys = keys(fixture_kernel);
  fixture_kernel_keys.insert("dispatches_to");
  fixture_kernel_keys.insert("deterministic");  // schema 2
  fixture_kernel_keys.insert("origin");         // schema 2: the plugin a kernel came from
  fixture_kernel_keys.insert("device");         // the GPU it ran on (--devices)
  fixture_kernel_keys.insert("activity");       // what the activity trace saw it run
  fixture_kernel_keys.insert("warning");        // e.g. most samples throttled
  fixture_kernel_keys.insert("floor");          // its problem's floor and its % of it
  EXPECT_EQ(fixture_kernel_keys, keys(kernel_json));
  // Accuracy in units of the rule, per output: added since.
  auto fixture_verification = keys(fixture_kernel["verification"]);
  fixture_verification.insert("accuracy");
  EXPECT_EQ(fixture_verification, keys(kernel_json["verification"]));
  auto fixture_trial = keys(fixture_kernel["verification"]["trials"][0]);
  fixture_trial.insert("accuracy");
  EXPECT_EQ(fixture_trial, keys(kernel_json["verification"]["trials"][0]));
  auto fixture_timing = keys(fixture_kernel["timing"]);
  fixture_timing.insert({"median_ci_ms", "checks"});  // schema 2
  fixture_timing.insert("conditions");                // the GPU's state around the samples
  EXPECT_EQ(fixture_timing, keys(kernel_json["timing"]));
  EXPECT_EQ(keys(fixture_kernel["bandwidth"]), keys(kernel_json["bandwidth"]));
  EXPECT_EQ(keys(fixture_kernel["speedup"]), keys(kernel_json["speedup"]));
}

TEST(Report, ADeviceReadsBackAsItWasWritten) {
  // The report's form is also the device worker's: one serialization of a GPU.
  DeviceInfo d;
  d.index = 3;
  d.name = "NVIDIA H100 80GB HBM3";
  d.sm_count = 132;
  d.compute_capability_major = 9;
  d.compute_capability_minor = 0;
  d.memory_bytes = 85017493504;
  d.l2_bytes = 52428800;
  d.memory_clock_khz = 2619000;
  d.memory_bus_width_bits = 5120;
  d.driver_version = 13000;
  d.runtime_version = 13000;
  d.untraced = "libcupti was not found";
  const DeviceInfo back = device_info_from_json(device_json(d));
  EXPECT_EQ(device_json(back), device_json(d));
  EXPECT_EQ(back.compute_capability_major, 9);
  EXPECT_EQ(back.untraced, "libcupti was not found");
  EXPECT_EQ(back.unmonitored, "");
}

TEST(Report, FixtureSummaryIsConsistent) {
  // The summary of a real report counts its kernels' statuses, and its exit code follows.
  const json fixture = json::parse(
      testing::read_text(testing::source_path("tests/fixtures/h100_kernelbench_v1.json")));
  json counts = {{"kernels", 0}, {"passed", 0},  {"failed", 0},
                 {"error", 0},   {"skipped", 0}, {"not_supported", 0}};
  for (const json& p : fixture["problems"])
    for (const json& k : p["kernels"]) {
      counts["kernels"] = counts["kernels"].get<int>() + 1;
      const auto status = k["status"].get<std::string>();
      counts[status] = counts[status].get<int>() + 1;
    }
  EXPECT_EQ(fixture["summary"], counts);
  const bool any_failed = counts["failed"].get<int>() + counts["error"].get<int>() > 0;
  EXPECT_EQ(fixture["exit_code"], any_failed ? 1 : 0);
}

TEST(Report, Table) {
  const std::string table = format_run_table(sample_report());
  for (const char* text :
       {"device: Test GPU (132 SMs, cc 9.0)",
        "copy bandwidth: 2000 GB/s",
        "latency floor: 2.9 us cold, 2.1 us warm (empty launch 1.8 us), a launch that copies "
        "512 bytes\n",
        "min bytes 0.0 MB  floor 2.9 us (latency, L2 evicted)\n",
        "GB/s % floor  speedup",
        "ln  layer_norm 4x8",
        "layer_norm.naive",
        "layer_norm.fast",
        "layer_norm.warp",
        "group_norm.naive",
        "group_norm.other",
        "passed",
        "failed",
        "not_supported",
        "error",
        "skipped",
        "2 of 32 elements differ",
        "row too long",
        "SKIPPED: needs 9 GB",
        "    3.0000",
        "1.00x"})
    EXPECT_NE(table.find(text), std::string::npos) << "missing \"" << text << "\" in:\n" << table;
  EXPECT_EQ(table.find("RUN ABORTED"), std::string::npos);
  // What the activity trace saw, under the kernel's line.
  for (const char* text :
       {"      ran 1 kernel: layer_norm_rows<float> 2.900 \u00b5s (100%); device time 2.900 "
        "\u00b5s "
        "of the 3.000 ms event-timed median\n",
        "      ran 1 kernel, 1 memset: spin 1.100 \u00b5s (69%) on the other stream, memset "
        "4.1 KB 500.0 ns (31%)\n"})
    EXPECT_NE(table.find(text), std::string::npos) << "missing \"" << text << "\" in:\n" << table;
  EXPECT_EQ(table.find("no activity trace"), std::string::npos);
  EXPECT_NE(
      table.find("      WARNING: 2 of 3 samples taken while the GPU throttled (sw_power_cap)\n"),
      std::string::npos)
      << table;
  EXPECT_EQ(table.find("6.00x"), std::string::npos);  // the failed kernel shows no time

  RunReport untraced = sample_report();
  untraced.devices = {{*untraced.device, untraced.copy_bandwidth, untraced.latency_floor}};
  untraced.devices[0].info.untraced = "libcupti was not found";
  EXPECT_NE(format_run_table(untraced).find(
                "GPU 0: no activity trace (libcupti was not found): work off the given stream is "
                "judged only by how long the device stays busy after it (50 us allowed)"),
            std::string::npos);

  RunReport aborted = sample_report();
  aborted.aborted = "device lost";
  EXPECT_NE(format_run_table(aborted).find("RUN ABORTED: device lost"), std::string::npos);
}

// Several outputs (a backward op's dx, dweight, dbias): the table names the one that used the
// most of its tolerance; one output: no name.
TEST(Report, TableNamesTheWorstOfSeveralOutputs) {
  const auto check = [](const char* name, double use) {
    TensorCheck c;
    c.tensor = name;
    c.checked = 32;
    c.accuracy.tolerance_use = use;
    return c;
  };
  RunReport several = sample_report();
  KernelResult& naive = several.problems[0].kernels[0];
  naive.trials[0].result.tensors = {check("dx", 0.10), check("dweight", 0.40)};
  naive.trials[1].result.tensors = {check("dx", 0.25), check("dweight", 0.05)};
  const std::string table = format_run_table(several);
  EXPECT_NE(table.find(" 40%  yes  worst output: dweight\n"), std::string::npos) << table;

  RunReport one = sample_report();
  one.problems[0].kernels[0].trials[0].result.tensors = {check("y", 0.30)};
  const std::string single = format_run_table(one);
  EXPECT_NE(single.find(" 30%  yes\n"), std::string::npos) << single;
  EXPECT_EQ(single.find("worst output"), std::string::npos) << single;
}

// tests/fixtures/report/writer_v2.json is this report as the writer writes it: the Python
// schema test validates it against results/report.schema.json, so the schema is checked
// against the writer and not only against older files. Regenerate it when the writer changes:
//   NORMBENCH_WRITE_FIXTURES=1 build/tests/normbench_cpu_tests --gtest_filter=Report.Writer*
TEST(Report, WriterMatchesItsFixture) {
  json j = report_to_json(sample_report());
  j["tool"]["version"] = "fixture";  // the build's own version and revision vary
  j["tool"]["git_revision"] = "fixture";
  const std::string path = testing::source_path("tests/fixtures/report/writer_v2.json");
  if (std::getenv("NORMBENCH_WRITE_FIXTURES")) {
    std::ofstream(path) << j.dump(2) << "\n";
  }
  EXPECT_EQ(json::parse(testing::read_text(path)), j)
      << "the writer changed: regenerate the fixture (see above) and check the schema";
}

}  // namespace
}  // namespace normbench
