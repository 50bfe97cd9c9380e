// Every registered kernel against the float64 reference on every problem of configs/smoke.json,
// configs/edge.json, their *_formats.json twins (bfloat16/float16, the RMSNorm ops,
// channels-last GroupNorm), configs/smoke_channels.json (RMSNorm over channels,
// InstanceNorm), configs/smoke_group_norm_silu.json (GroupNorm + SiLU in every format) and
// configs/smoke_backward.json (the backward ops' dx, dweight and dbias in every format),
// parameterised over the registry: a new variant is
// tested without touching this file. A variant that declares a shape unsupported is skipped
// with its reason; one that claims support must pass. Each config runs once, with every
// kernel, in one device worker; the tests read its results.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/run/run_pipeline.hpp"
#include "kernels/registry.hpp"
#include "reference/parallel_chunks.hpp"
#include "tests/gpu/gpu_test_support.hpp"

namespace normbench {
namespace {

struct KernelCase {
  const RunConfig* config;
  const ProblemConfig* problem;
  const KernelVariant* kernel;
};

void PrintTo(const KernelCase& c, std::ostream* os) {
  *os << c.config->name << "/" << c.problem->id << " with " << c.kernel->id;
}

const RunConfig& loaded(const std::string& name) {
  static std::vector<std::unique_ptr<RunConfig>> configs;
  for (const auto& c : configs)
    if (c->name == name) return *c;
  configs.push_back(std::make_unique<RunConfig>(
      load_config_file(std::string(NORMBENCH_SOURCE_DIR) + "/configs/" + name + ".json")));
  return *configs.back();
}

std::vector<KernelCase> cases_of(const std::string& config_name) {
  const RunConfig& config = loaded(config_name);
  std::vector<KernelCase> cases;
  for (const auto& problem : config.problems)
    for (const auto& kernel : registered_kernels())
      if (kernel.op == problem.shape.op) cases.push_back({&config, &problem, &kernel});
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<KernelCase>& info) {
  std::string name = info.param.problem->id + "__" + info.param.kernel->id;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class RegisteredKernel : public ::testing::TestWithParam<KernelCase> {};

// The run of a whole config with every registered kernel, made once.
const RunReport& run_of(const RunConfig& config) {
  static std::vector<std::unique_ptr<RunReport>> runs;
  for (const auto& r : runs)
    if (r->config == &config) return *r;
  RunSettings settings;
  settings.timing = false;
  settings.threads = default_thread_count();
  RunSettings all = settings;
  const auto plan = plan_run(config, all);
  runs.push_back(std::make_unique<RunReport>(
      run_benchmarks(config, plan, settings, {"registered_kernels_test"})));
  return *runs.back();
}

TEST_P(RegisteredKernel, MatchesReference) {
  NORMBENCH_SKIP_WITHOUT_GPU();
  const KernelCase& c = GetParam();
  const RunReport& report = run_of(*c.config);
  ASSERT_TRUE(report.aborted.empty()) << report.aborted;
  const ProblemResult* problem = nullptr;
  for (const auto& p : report.problems)
    if (p.config == c.problem) problem = &p;
  ASSERT_NE(problem, nullptr);
  ASSERT_FALSE(problem->skipped) << problem->reason;
  const KernelResult* found = nullptr;
  for (const auto& k : problem->kernels)
    if (k.id == c.kernel->id) found = &k;
  ASSERT_NE(found, nullptr);
  const KernelResult& k = *found;
  if (k.status == KernelStatus::not_supported) GTEST_SKIP() << "not supported: " << k.reason;
  std::string mismatches;
  for (const auto& t : k.trials)
    for (const auto& m : t.result.first_mismatches)
      mismatches += fmt::format("\n  trial {} {}[{}]: got {} expected {}", t.trial, m.tensor,
                                m.index, m.value, m.expected);
  EXPECT_EQ(k.status, KernelStatus::passed) << k.reason << mismatches;
  EXPECT_EQ(static_cast<int>(k.trials.size()), c.problem->trials);
}

INSTANTIATE_TEST_SUITE_P(Smoke, RegisteredKernel, ::testing::ValuesIn(cases_of("smoke")),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Edge, RegisteredKernel, ::testing::ValuesIn(cases_of("edge")), case_name);
INSTANTIATE_TEST_SUITE_P(SmokeFormats, RegisteredKernel,
                         ::testing::ValuesIn(cases_of("smoke_formats")), case_name);
INSTANTIATE_TEST_SUITE_P(EdgeFormats, RegisteredKernel,
                         ::testing::ValuesIn(cases_of("edge_formats")), case_name);
INSTANTIATE_TEST_SUITE_P(SmokeChannels, RegisteredKernel,
                         ::testing::ValuesIn(cases_of("smoke_channels")), case_name);
INSTANTIATE_TEST_SUITE_P(SmokeGroupNormSilu, RegisteredKernel,
                         ::testing::ValuesIn(cases_of("smoke_group_norm_silu")), case_name);
INSTANTIATE_TEST_SUITE_P(SmokeBackward, RegisteredKernel,
                         ::testing::ValuesIn(cases_of("smoke_backward")), case_name);

}  // namespace
}  // namespace normbench
