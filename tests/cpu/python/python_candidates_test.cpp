// Python candidates as the harness sees them without a GPU or PyTorch: their ids, the refusals
// of bad specs and of a Python that cannot serve, the probe's answer, and their place in a plan.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "app/config/config.hpp"
#include "app/python/python_candidates.hpp"
#include "app/python/python_setup.hpp"
#include "app/run/work_plan.hpp"
#include "app/util/errors.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using testing::TempDir;

using testing::usage_error;

TEST(PythonCandidates, IdsNameModuleAndFunctionOrTheFile) {
  EXPECT_EQ(callable_id("my_norms:rms"), "python.my_norms.rms");
  EXPECT_EQ(callable_id("pkg.mod:f"), "python.pkg_mod.f");
  EXPECT_EQ(kernelbench_id("/a/b/40_LayerNorm v2.py"), "kernelbench.40_LayerNorm_v2");
  EXPECT_EQ(kernelbench_id("sub"), "kernelbench.sub");
}

TEST(PythonCandidates, AMalformedSpecIsRefused) {
  for (const char* spec : {"module", ":f", "m:", "a:b:c"})
    EXPECT_NE(usage_error([&] { callable_id(spec); }).find("expected module:function"),
              std::string::npos)
        << spec;
}

TEST(PythonCandidates, AnUnknownCompileModeIsRefusedBeforePythonIsLookedFor) {
  PythonCandidateOptions o;
  o.torch = true;
  o.compile_mode = "fastest";
  EXPECT_NE(usage_error([&] { python_candidates(o); }).find("allowed: default, reduce-overhead"),
            std::string::npos);
}

TEST(PythonCandidates, NoneAskedIsNoneMade) {
  EXPECT_TRUE(python_candidates({}).empty());
}

TEST(PythonCandidates, KernelBenchFilesMustBeReadableRegularFiles) {
  TempDir dir;
  PythonCandidateOptions o;
  o.kernelbench_files = {dir.path()};
  EXPECT_NE(usage_error([&] { python_candidates(o); }).find("--kernelbench"), std::string::npos);
  o.kernelbench_files = {dir.file("missing.py")};
  EXPECT_NE(usage_error([&] { python_candidates(o); }).find("missing.py"), std::string::npos);
}

TEST(PythonCandidates, TwoCandidatesWithOneIdAreRefused) {
  TempDir a, b;
  for (const TempDir* d : {&a, &b}) {
    std::ofstream(d->file("same.py")) << "class ModelNew: pass\n";
  }
  PythonCandidateOptions o;
  o.kernelbench_files = {a.file("same.py"), b.file("same.py")};
  EXPECT_NE(usage_error([&] { python_candidates(o); }).find("kernelbench.same"), std::string::npos);
}

TEST(PythonCandidates, APythonThatCannotRunIsAUsageError) {
  const char* before = getenv("NORMBENCH_PYTHON");
  const std::string saved = before ? before : "";
  setenv("NORMBENCH_PYTHON", "/no/such/python3", 1);
  PythonCandidateOptions o;
  o.torch = true;
  const std::string what = usage_error([&] { python_candidates(o); });
  if (before)
    setenv("NORMBENCH_PYTHON", saved.c_str(), 1);
  else
    unsetenv("NORMBENCH_PYTHON");
  EXPECT_NE(what.find("--torch needs Python with PyTorch: cannot run /no/such/python3"),
            std::string::npos)
      << what;
}

TEST(PythonSetup, TheProbesAnswerIsReadOrItsGapNamed) {
  const std::string good =
      R"({"executable": "/v/bin/python3", "home": "/usr", "version": "3.12.3",
          "library": "/usr/lib/libpython3.12.so.1.0", "torch": "2.11.0", "package": "/p",
          "path": ["/usr/lib/python3.12", "/v/lib/site-packages"]})";
  const PythonSetup s = python_setup_from(good, "python3", "--torch");
  EXPECT_EQ(s.library, "/usr/lib/libpython3.12.so.1.0");
  EXPECT_EQ(s.home, "/usr");
  EXPECT_EQ(s.path.size(), 2u);
  EXPECT_EQ(s.torch_version, "2.11.0");

  auto refusal = [](const std::string& answer) {
    return usage_error([&] { python_setup_from(answer, "python3", "--torch"); });
  };
  EXPECT_NE(refusal("not json").find("did not answer"), std::string::npos);
  EXPECT_NE(refusal(R"({"executable": "x", "path": [], "version": "3.11.2"})")
                .find("no shared libpython"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"executable": "x", "path": [], "library": "/l",
                        "torch_error": "ModuleNotFoundError: No module named 'torch'"})")
                .find("cannot import torch"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"executable": "x", "path": [], "library": "/l", "torch": "2",
                        "package_error": "ModuleNotFoundError"})")
                .find("pip install ./python"),
            std::string::npos);
}

// Candidates come after the registered kernels of each problem's op, one id for every op, and
// --kernel may name them.
TEST(PythonCandidates, APlanGivesEachProblemTheCandidatesOfItsOp) {
  const RunConfig config = load_config_file(testing::source_path("configs/smoke.json"));
  std::vector<KernelVariant> candidates;
  for (Op op : {Op::layer_norm, Op::group_norm}) {
    KernelVariant v;
    v.op = op;
    v.id = "torch.eager";
    v.plan = [](const ProblemShape&, const DeviceCaps&) { return KernelPlan{}; };
    candidates.push_back(v);
  }
  RunSettings settings;
  settings.kernel_filter = {"torch.eager"};
  const auto plan = plan_run(config, settings, candidates);
  int with_candidate = 0;
  for (const PlannedProblem& p : plan) {
    for (const KernelVariant* k : p.kernels) {
      EXPECT_EQ(k->id, "torch.eager");
      EXPECT_EQ(k->op, p.problem->shape.op);
    }
    with_candidate += !p.kernels.empty();
  }
  EXPECT_GT(with_candidate, 0);
}

}  // namespace
}  // namespace normbench
