// `normbench run`'s Python options against hostile values, without a GPU or PyTorch. Each bad
// value must exit 2 before anything runs, naming the option, the value (bounded) and what is
// allowed, and write nothing. NORMBENCH_PYTHON names no program here, so that a value refused
// only when Python is looked for ("cannot run /no/such/python3") shows a check that came late:
// on a machine with PyTorch it would have failed every problem of the run instead.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

namespace fs = std::filesystem;
using testing::CliRun;
using testing::quoted;
using testing::TempDir;

const char* const kConfig = R"({"name": "c", "problems": [{"id": "a", "op": "layer_norm",
    "shape": [4], "normalized_shape": [4]}]})";

using testing::contains;

class HostilePython : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::write_text(dir_.file("c.json"), kConfig);
    testing::write_text(dir_.file("m.py"), "class ModelNew: pass\n");
  }
  // `normbench run --config c.json ARGS --out r.json` with NORMBENCH_PYTHON=`python`.
  CliRun run(const std::string& args, const std::string& python = "/no/such/python3") {
    return testing::run_binary("env", dir_,
                               "NORMBENCH_PYTHON=" + quoted(python) + " " +
                                   quoted(NORMBENCH_BINARY) + " run --config c.json --out r.json " +
                                   args);
  }
  // The run refused with `message`, in a short message, and nothing written.
  void expect_refused(const std::string& args, const std::string& message,
                      const std::string& python = "/no/such/python3", size_t max_bytes = 1000) {
    const std::vector<std::string> before = dir_.entries();
    const CliRun r = run(args, python);
    EXPECT_EQ(r.exit_code, 2) << args.substr(0, 200) << "\n" << r.err;
    EXPECT_TRUE(contains(r.err, message)) << args.substr(0, 200) << "\n" << r.err;
    EXPECT_LT(r.err.size(), max_bytes) << r.err;
    EXPECT_EQ(dir_.entries(), before) << args.substr(0, 200);
  }
  TempDir dir_;
};

TEST_F(HostilePython, SpecsThatAreNotModuleAndFunctionNamesAreRefusedBeforePython) {
  const std::string long_name(100000, 'a');
  for (const std::string& spec : std::vector<std::string>{
           "a b:f", "..:x", "a/b:c", "./m.py:f", "1m:f", "m.:f", ".m:f", "m:f.g", "m:f ",
           "m:f\x1b[31m", "m\n:f", "m\xff:f", "m:f:g", long_name + ":f", "m:" + long_name})
    expect_refused("--python " + quoted(spec), "--python ");
  expect_refused("--python 'a b:f'",
                 "--python a b:f: expected module:function, each a Python "
                 "name (letters, digits and '_', not starting with a digit");
  expect_refused("--python " + quoted("m:f\x1b[31m"), "--python m:f\\u001b[31m: expected");
}

TEST_F(HostilePython, ValidSpecsReachTheSearchForPython) {
  for (const std::string spec : {"m:f", "pkg.sub.mod:_f2",
                                 "m\xc3\xb6"
                                 "dulo:f"})
    expect_refused("--python " + quoted(spec), "cannot run /no/such/python3");
}

TEST_F(HostilePython, CandidatesWithOneIdNameTheOptionThatAskedForThem) {
  expect_refused("--python m:f --python m:f",
                 "--python m:f: another candidate has the id python.m.f");
  expect_refused("--python a.b:f --python a_b:f", "--python a_b:f: another candidate has the id");
  fs::create_directory(dir_.file("s"));
  testing::write_text(dir_.file("s/m.py"), "class ModelNew: pass\n");
  expect_refused("--kernelbench m.py --kernelbench m.py",
                 "--kernelbench m.py: another candidate has the id kernelbench.m");
  expect_refused("--kernelbench m.py --kernelbench s/m.py",
                 "--kernelbench s/m.py: another candidate has the id kernelbench.m");
  const std::string long_spec = "m:" + std::string(200, 'f');
  expect_refused("--python " + long_spec, "--python m:fff");
}

TEST_F(HostilePython, KernelBenchFilesThatCannotBeSubmissionsAreRefused) {
  ASSERT_EQ(::mkfifo(dir_.file("fifo.py").c_str(), 0600), 0);
  fs::create_directory(dir_.file("folder.py"));
  // Elsewhere: listing the test's folder would stumble on the loop itself.
  TempDir loops;
  fs::create_symlink("loop2.py", loops.file("loop1.py"));
  fs::create_symlink("loop1.py", loops.file("loop2.py"));
  testing::write_text(dir_.file("empty.py"), "");
  testing::write_text(dir_.file("model.txt"), "class ModelNew: pass\n");
  const std::string not_utf8 = "n\xff.py";
  testing::write_text(dir_.file(not_utf8), "class ModelNew: pass\n");
  fs::create_symlink(not_utf8, dir_.file("link.py"));
  const struct {
    std::string path, message;
  } cases[] = {
      {"fifo.py", "--kernelbench fifo.py: it is a FIFO; allowed: a regular file"},
      {"folder.py", "--kernelbench folder.py: it is a directory"},
      {loops.file("loop1.py"), "/loop1.py: Too many levels of symbolic links"},
      {"/dev/null", "--kernelbench /dev/null: it is a character device"},
      {"missing.py", "--kernelbench missing.py: No such file or directory"},
      {"empty.py", "--kernelbench empty.py: is empty: it defines no ModelNew"},
      {"model.txt", "--kernelbench model.txt: not a .py file"},
      {not_utf8, "--kernelbench n\\xff.py: its name is not UTF-8"},
      {"link.py",
       "--kernelbench link.py: the name of a folder on its path, or of its link's "
       "target, is not UTF-8"},
      {std::string(100000, 'a') + ".py", "(100003 bytes in all): File name too long"},
  };
  for (const auto& c : cases) expect_refused("--kernelbench " + quoted(c.path), c.message);
  if (::geteuid() != 0) {  // root reads a file of mode 000 all the same
    testing::write_text(dir_.file("locked.py"), "class ModelNew: pass\n");
    ::chmod(dir_.file("locked.py").c_str(), 0);
    expect_refused("--kernelbench locked.py", "--kernelbench locked.py: cannot be read");
  }
}

TEST_F(HostilePython, AFileNamedLikeAnOptionIsStillAFile) {
  testing::write_text(dir_.file("-x.py"), "class ModelNew: pass\n");
  for (const std::string args : {"--kernelbench -x.py", "--kernelbench=-x.py"})
    expect_refused(args, "--kernelbench needs Python with PyTorch: cannot run /no/such/python3");
}

TEST_F(HostilePython, ACompileModeIsOnlyTakenWithTorch) {
  // Without --torch it was ignored: the run went ahead with no PyTorch at all.
  expect_refused("--torch-compile-mode max-autotune", "--torch-compile-mode requires --torch");
  for (const std::string& mode :
       std::vector<std::string>{"DEFAULT", " default", "a\x1b[2Jb", std::string(100000, 'a')})
    expect_refused("--torch --torch-compile-mode " + quoted(mode),
                   ": not a mode of torch.compile; allowed: default, reduce-overhead, "
                   "max-autotune, max-autotune-no-cudagraphs");
  expect_refused("--torch --torch-compile-mode " + quoted("a\x1b[2Jb"),
                 "--torch-compile-mode a\\u001b[2Jb: not a mode");
}

TEST_F(HostilePython, ACandidateIdWithoutItsOptionSaysWhichOptionAddsIt) {
  // These messages list the registered kernels, which work_plan cuts at 2,000 characters.
  const std::string python = "/no/such/python3";
  const size_t with_list = 2500;
  expect_refused("--kernel torch.eager",
                 "--kernel torch.eager: no such kernel (torch.eager and torch.compile are "
                 "candidates of `normbench run --torch`)",
                 python, with_list);
  expect_refused("--kernel python.m.f", "candidate of `normbench run --python module:function`",
                 python, with_list);
  expect_refused("--kernel kernelbench.m", "candidate of `normbench run --kernelbench FILE.py`",
                 python, with_list);
  const CliRun plan = testing::run_binary(NORMBENCH_BINARY, dir_, "plan --kernel torch.compile");
  EXPECT_EQ(plan.exit_code, 2) << plan.err;
  EXPECT_TRUE(contains(plan.err, "candidates of `normbench run --torch`")) << plan.err;
}

TEST_F(HostilePython, AMissingPythonEndsEveryCombinationBeforeTheGpu) {
  for (const std::string args :
       {"--torch --shard 1/2", "--torch --devices 0,1", "--torch --no-timing",
        "--torch --save-tensors t", "--python m:f --no-timing"})
    expect_refused(args, "needs Python with PyTorch: cannot run /no/such/python3");
  // An empty NORMBENCH_PYTHON is unset: python3 on PATH, here none.
  const CliRun r =
      testing::run_binary("env", dir_,
                          "NORMBENCH_PYTHON= PATH=/nonexistent " + quoted(NORMBENCH_BINARY) +
                              " run --config c.json --torch");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--torch needs Python with PyTorch: cannot run python3")) << r.err;
}

TEST_F(HostilePython, AProbeAnswerOfOtherTypesIsAUsageErrorNotAnInternalError) {
  const std::string script = dir_.file("python");
  testing::write_text(
      script, "#!/bin/sh\necho '{\"executable\": \"x\", \"path\": 5, \"library\": null}'\n");
  ::chmod(script.c_str(), 0755);
  expect_refused("--torch", "\"path\": 5; expected a list of strings", script);
}

}  // namespace
}  // namespace normbench
