// `normbench report`'s model: merging reports by problem id, and the speedups recomputed
// across reports (reading them is report_reader_test.cpp's). Inputs: the H100 fixture, the
// hand-made PyTorch fixture in tests/fixtures/report, and small reports built here.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "app/render/report_model.hpp"
#include "app/util/errors.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using nlohmann::json;
using testing::source_path;

std::string h100_path() {
  return source_path("tests/fixtures/h100_kernelbench_v1.json");
}
std::string torch_path() {
  return source_path("tests/fixtures/report/torch_example.json");
}

const ReportProblem& problem_of(const ReportModel& m, const std::string& id) {
  for (const auto& p : m.problems)
    if (p.id == id) return p;
  throw std::runtime_error("no problem " + id);
}

const ReportKernel& kernel_of(const ReportProblem& p, const std::string& id) {
  const ReportKernel* k = find_report_kernel(p, id);
  if (!k) throw std::runtime_error("no kernel " + id + " in " + p.id);
  return *k;
}

// The median of `kernel` in `problem` of a report file, read straight from its JSON.
double median_in(const std::string& path, const std::string& problem, const std::string& kernel) {
  const json doc = json::parse(testing::read_text(path));
  for (const auto& p : doc["problems"])
    if (p["id"] == problem)
      for (const auto& k : p["kernels"])
        if (k["id"] == kernel) return k["timing"]["median_ms"].get<double>();
  throw std::runtime_error("no " + problem + "/" + kernel);
}

// A minimal valid report: one layer_norm problem with the given kernels.
json small_report(const std::string& device, const json& kernels, const std::string& id = "P",
                  const json& shape = json::array({4, 8})) {
  return {{"schema_version", 1},
          {"tool", {{"name", "test"}, {"version", "1"}}},
          {"config", {{"name", "cfg"}, {"hash", "h"}}},
          {"device", {{"name", device}}},
          {"copy_bandwidth", {{"gb_per_s", 1000.0}}},
          {"problems", json::array({{{"id", id},
                                     {"op", "layer_norm"},
                                     {"shape", shape},
                                     {"min_bytes", 1000000},
                                     {"kernels", kernels}}})}};
}

json timed_kernel(const std::string& id, double median_ms, bool baseline = false) {
  return {
      {"id", id},
      {"status", "passed"},
      {"is_baseline", baseline},
      {"verification", {{"passed", true}, {"max_abs_error", 1e-7}, {"max_rel_error", 1e-3}}},
      {"timing",
       {{"median_ms", median_ms}, {"samples_ms", json::array({median_ms, median_ms, median_ms})}}}};
}

LoadedReport load_json(const json& doc, const std::string& name) {
  return read_report_json(doc, name);
}

TEST(ReportMerge, NormbenchAndTorchMergeByProblemId) {
  const ReportModel m =
      merge_reports({read_report_file(h100_path()), read_report_file(torch_path())}, false);
  EXPECT_TRUE(m.warnings.empty());
  ASSERT_EQ(m.sources.size(), 2u);
  EXPECT_EQ(m.sources[1].label, "torch_example");
  // Order of first appearance; B only in the normbench run, D only in the torch one.
  ASSERT_EQ(m.problems.size(), 4u);
  EXPECT_EQ(m.problems[0].id, "A_layer_norm");
  EXPECT_EQ(m.problems[1].id, "B_group_norm");
  EXPECT_EQ(m.problems[2].id, "C_layer_norm_gelu_scale");
  EXPECT_EQ(m.problems[3].id, "D_fixture_only");
  EXPECT_EQ(m.problems[0].kernels.size(), 7u);
  EXPECT_EQ(m.problems[1].kernels.size(), 4u);
  EXPECT_EQ(m.problems[3].kernels.size(), 2u);
  EXPECT_EQ(m.problems[0].sources, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(m.problems[1].sources, (std::vector<size_t>{0}));
  EXPECT_EQ(kernel_of(m.problems[0], "torch.eager").source, 1u);
  EXPECT_TRUE(m.has_torch_eager);
  EXPECT_TRUE(m.has_torch_compile);
}

TEST(ReportMerge, SpeedupsAreRatiosOfMediansAcrossReports) {
  const ReportModel m =
      merge_reports({read_report_file(h100_path()), read_report_file(torch_path())}, false);
  const ReportProblem& a = problem_of(m, "A_layer_norm");
  const double naive = median_in(h100_path(), "A_layer_norm", "layer_norm.naive");
  const double fast = median_in(h100_path(), "A_layer_norm", "layer_norm.default");
  const double eager = median_in(torch_path(), "A_layer_norm", "torch.eager");
  const double compiled = median_in(torch_path(), "A_layer_norm", "torch.compile");
  const ReportKernel& k = kernel_of(a, "layer_norm.default");
  ASSERT_TRUE(k.vs_baseline && k.vs_torch_eager && k.vs_torch_compile);
  EXPECT_DOUBLE_EQ(*k.vs_baseline, naive / fast);
  EXPECT_NEAR(*k.vs_baseline, 18.407, 0.001);  // as the H100 report itself says
  EXPECT_DOUBLE_EQ(*k.vs_torch_eager, eager / fast);
  EXPECT_DOUBLE_EQ(*k.vs_torch_compile, compiled / fast);
  EXPECT_DOUBLE_EQ(*kernel_of(a, "layer_norm.naive").vs_baseline, 1.0);
  EXPECT_DOUBLE_EQ(*kernel_of(a, "torch.eager").vs_torch_eager, 1.0);
  EXPECT_DOUBLE_EQ(*kernel_of(a, "torch.eager").vs_baseline, naive / eager);
  EXPECT_FALSE(kernel_of(a, "layer_norm.warp_per_row").vs_baseline);  // not supported: untimed

  // B has no PyTorch numbers; C's torch.compile failed verification; D has no baseline.
  const ReportKernel& b = kernel_of(problem_of(m, "B_group_norm"), "group_norm.default");
  EXPECT_TRUE(b.vs_baseline);
  EXPECT_FALSE(b.vs_torch_eager);
  EXPECT_FALSE(b.vs_torch_compile);
  const ReportProblem& c = problem_of(m, "C_layer_norm_gelu_scale");
  EXPECT_EQ(kernel_of(c, "torch.compile").status, KernelStatus::failed);
  EXPECT_FALSE(kernel_of(c, "torch.compile").timing);
  for (const auto& kernel : c.kernels) EXPECT_FALSE(kernel.vs_torch_compile) << kernel.id;
  EXPECT_TRUE(kernel_of(c, "layer_norm_gelu_scale.default").vs_torch_eager);
  const ReportProblem& d = problem_of(m, "D_fixture_only");
  EXPECT_EQ(d.baseline_id, "");
  EXPECT_FALSE(kernel_of(d, "torch.compile").vs_baseline);
  EXPECT_TRUE(kernel_of(d, "torch.compile").suspicious);
}

TEST(ReportMerge, DifferentGpuModelsAreRefusedUnlessAllowed) {
  const auto a = load_json(
      small_report("NVIDIA H100 80GB HBM3", json::array({timed_kernel("k", 1.0)})), "a.json");
  const auto b = load_json(
      small_report("NVIDIA A100-SXM4-80GB", json::array({timed_kernel("k2", 2.0)})), "b.json");
  try {
    merge_reports({a, b}, false);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("different GPU models"), std::string::npos) << what;
    EXPECT_NE(what.find("a.json from \"NVIDIA H100 80GB HBM3\""), std::string::npos) << what;
    EXPECT_NE(what.find("b.json from \"NVIDIA A100-SXM4-80GB\""), std::string::npos) << what;
    EXPECT_NE(what.find("--allow-mismatch"), std::string::npos) << what;
  }
  const ReportModel m = merge_reports({a, b}, true);
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("different GPU models"), std::string::npos);
  EXPECT_EQ(m.problems[0].kernels.size(), 2u);
}

TEST(ReportMerge, OneIdForDifferentProblemsIsRefusedUnlessAllowed) {
  const auto a = load_json(small_report("GPU", json::array({timed_kernel("k", 1.0)})), "a.json");
  const auto b = load_json(
      small_report("GPU", json::array({timed_kernel("k2", 1.0)}), "P", json::array({4, 16})),
      "b.json");
  EXPECT_THROW(merge_reports({a, b}, false), UsageError);
  const ReportModel m = merge_reports({a, b}, true);
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("problem P is not the same problem in a.json and b.json"),
            std::string::npos)
      << m.warnings[0];
}

TEST(ReportMerge, AKernelInTwoReportsIsShownTwiceAndTheFirstIsTheReference) {
  json first = small_report(
      "GPU", json::array({timed_kernel("naive", 4.0, true), timed_kernel("fast", 1.0)}));
  json second = small_report(
      "GPU", json::array({timed_kernel("naive", 8.0, true), timed_kernel("fast", 2.0)}));
  const ReportModel m =
      merge_reports({load_json(first, "dir1/run.json"), load_json(second, "dir2/run.json")}, false);
  EXPECT_EQ(m.sources[0].label, "run");
  EXPECT_EQ(m.sources[1].label, "run #2");
  const ReportProblem& p = m.problems[0];
  ASSERT_EQ(p.kernels.size(), 4u);
  EXPECT_EQ(m.warnings.size(), 2u);
  EXPECT_DOUBLE_EQ(*p.kernels[1].vs_baseline, 4.0);  // first report's naive over its fast
  EXPECT_DOUBLE_EQ(*p.kernels[3].vs_baseline, 2.0);  // first report's naive over the second fast
}

TEST(ReportMerge, BandwidthIsDerivedWhenTheReportLeftItOut) {
  // min_bytes 1e6 in 0.5 ms: 2 GB/s, 0.2% of the 1000 GB/s copy.
  const ReportModel m = merge_reports(
      {load_json(small_report("GPU", json::array({timed_kernel("k", 0.5)})), "r.json")}, false);
  const ReportKernel& k = m.problems[0].kernels[0];
  ASSERT_TRUE(k.gb_per_s && k.percent_of_copy);
  EXPECT_DOUBLE_EQ(*k.gb_per_s, 2.0);
  EXPECT_DOUBLE_EQ(*k.percent_of_copy, 0.2);
  EXPECT_FALSE(k.suspicious);
  EXPECT_FALSE(m.has_torch_eager);
  // A report without a latency floor: the copy floor (1 ms), and % of floor is % of copy.
  ASSERT_TRUE(k.floor && k.percent_of_floor);
  EXPECT_EQ(k.floor->bound, FloorBound::copy);
  EXPECT_DOUBLE_EQ(k.floor->ms, 1e6 / 1e9);
  EXPECT_DOUBLE_EQ(*k.percent_of_floor, 0.2);
}

// With a latency floor the longer floor binds, the one of the problem's L2 setting, of the GPU
// the kernel ran on; untimed kernels get the floor without a percent.
TEST(ReportMerge, FloorIsDerivedFromTheLatencyFloorOfTheKernelsGpu) {
  json kernels = json::array({timed_kernel("k", 0.01), timed_kernel("other", 0.02)});
  kernels.push_back({{"id", "slow"}, {"status", "failed"}, {"timing", nullptr}});
  kernels[1]["device"] = 1;
  json doc = small_report("GPU", kernels);
  doc["problems"][0]["min_bytes"] = 1000;  // 1 ns at 1000 GB/s
  doc["latency_floor"] = {{"empty_launch_ms", 0.002}, {"cold_ms", 0.003}, {"warm_ms", 0.0025}};
  doc["devices"] = json::array(
      {{{"index", 0}, {"name", "GPU"}},
       {{"index", 1},
        {"name", "GPU"},
        {"latency_floor", {{"empty_launch_ms", 0.002}, {"cold_ms", 0.004}, {"warm_ms", 0.0025}}}}});
  const ReportModel cold = merge_reports({load_json(doc, "cold.json")}, false);
  const ReportKernel& k = cold.problems[0].kernels[0];
  ASSERT_TRUE(k.floor && k.percent_of_floor);
  EXPECT_EQ(k.floor->bound, FloorBound::latency);
  EXPECT_EQ(k.floor->ms, 0.003);  // its GPU 0 has none of its own: the report's
  EXPECT_DOUBLE_EQ(*k.percent_of_floor, 30.0);
  EXPECT_EQ(cold.problems[0].kernels[1].floor->ms, 0.004);  // GPU 1's
  const ReportKernel& failed = cold.problems[0].kernels[2];
  ASSERT_TRUE(failed.floor);
  EXPECT_FALSE(failed.percent_of_floor);

  doc["problems"][0]["config"] = {{"timing", {{"flush_l2", false}}}};
  const ReportModel warm = merge_reports({load_json(doc, "warm.json")}, false);
  EXPECT_FALSE(warm.problems[0].l2_evicted);
  EXPECT_EQ(warm.problems[0].kernels[0].floor->ms, 0.0025);
  EXPECT_DOUBLE_EQ(*warm.problems[0].kernels[0].percent_of_floor, 25.0);

  // What the writer wrote is what is shown.
  doc["problems"][0]["kernels"][0]["floor"] = {
      {"ms", 0.005}, {"bound", "latency"}, {"percent", 50.0}};
  const ReportModel written = merge_reports({load_json(doc, "written.json")}, false);
  EXPECT_EQ(written.problems[0].kernels[0].floor->ms, 0.005);
  EXPECT_EQ(*written.problems[0].kernels[0].percent_of_floor, 50.0);
}

}  // namespace
}  // namespace normbench
