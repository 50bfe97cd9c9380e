// Finding Python against a hostile NORMBENCH_PYTHON: a program that is no Python, answers the
// probe with JSON of the wrong shape, prints without end or never answers must each be a usage
// error that names it (exit 2), never a json type_error (exit 3, "internal error") or a hang.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <string>

#include "app/python/python_setup.hpp"
#include "app/util/errors.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using testing::TempDir;

using testing::usage_error;

using testing::contains;

// The probe's fields as a program other than normbench's probe may print them. Each used to
// escape python_setup_from as nlohmann::json::type_error, which main reports as an internal
// error with exit 3.
TEST(PythonSetup, AProbeAnswerOfTheWrongTypesIsAUsageError) {
  const std::string base = R"("executable": "x", "home": "/usr", "version": "3.12.3")";
  const struct {
    std::string answer, named;
  } cases[] = {
      {"{" + base + R"(, "path": 5, "library": "/l.so"})",
       "\"path\": 5; expected a list of strings"},
      {"{" + base + R"(, "path": [1, 2], "library": "/l.so"})",
       "\"path\": [1,2]; expected a list of strings"},
      {"{" + base + R"(, "path": [], "library": null})", "\"library\": null; expected a string"},
      {"{" + base + R"(, "path": [], "library": 7})", "\"library\": 7; expected a string"},
      {R"({"executable": 1, "path": [], "library": "/l.so"})",
       "\"executable\": 1; expected a string"},
      {R"({"executable": "x", "version": [3], "path": [], "library": "/l.so"})",
       "\"version\": [3]; expected a string"},
      {"{" + base + R"(, "path": [], "library": "/l.so", "torch_error": {"a": 1}})",
       "\"torch_error\": {\"a\":1}; expected a string"},
      {"{" + base + R"(, "path": [], "library": "/l.so", "torch": 2})",
       "\"torch\": 2; expected a string"},
      {"{" + base + R"(, "path": [], "library": "/l.so", "torch": "2", "package_error": false})",
       "\"package_error\": false; expected a string"},
  };
  for (const auto& c : cases) {
    std::string what;
    EXPECT_NO_THROW(what = usage_error([&] { python_setup_from(c.answer, "py", "--torch"); }))
        << c.answer;
    EXPECT_TRUE(
        contains(what, "--torch needs Python with PyTorch; py's answer to normbench's probe has"))
        << what;
    EXPECT_TRUE(contains(what, c.named)) << what;
  }
}

TEST(PythonSetup, AnEmptyOrRelativeLibraryIsRefused) {
  // dlopen("") would return the worker's own program, and a relative name is looked up on the
  // worker's library path, not where the probe found it.
  for (const char* library : {"", "libpython3.so"}) {
    const std::string answer = R"({"executable": "x", "path": [], "torch": "2", "library": ")" +
                               std::string(library) + "\"}";
    EXPECT_TRUE(contains(usage_error([&] { python_setup_from(answer, "py", "--python"); }),
                         "not an absolute path"))
        << library;
  }
}

TEST(PythonSetup, AnOversizedValueIsShownBounded) {
  const std::string answer = R"({"executable": "x", "path": [], "library": "/l.so",
      "torch_error": ")" + std::string(100000, 'e') +
                             "\"}";
  const std::string what = usage_error([&] { python_setup_from(answer, "py", "--torch"); });
  EXPECT_TRUE(contains(what, "cannot import torch")) << what.substr(0, 300);
  EXPECT_LT(what.size(), 1000u);
}

// find_python against programs that are not a Python. NORMBENCH_PYTHON is restored after each.
class FindPython : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* before = getenv("NORMBENCH_PYTHON");
    had_ = before != nullptr;
    saved_ = before ? before : "";
  }
  void TearDown() override {
    if (had_)
      setenv("NORMBENCH_PYTHON", saved_.c_str(), 1);
    else
      unsetenv("NORMBENCH_PYTHON");
  }
  std::string script(const std::string& name, const std::string& body) {
    const std::string path = dir_.file(name);
    testing::write_text(path, "#!/bin/sh\n" + body + "\n");
    chmod(path.c_str(), 0755);
    return path;
  }
  std::string refusal(const std::string& interpreter,
                      std::chrono::seconds timeout = std::chrono::seconds(20)) {
    setenv("NORMBENCH_PYTHON", interpreter.c_str(), 1);
    return usage_error([&] { find_python("--torch", timeout); });
  }
  TempDir dir_;
  bool had_ = false;
  std::string saved_;
};

TEST_F(FindPython, ProgramsThatAreNoPythonAreNamed) {
  testing::write_text(dir_.file("plain"), "print(1)\n");  // not executable
  const struct {
    std::string interpreter, message;
  } cases[] = {
      {dir_.path(), "cannot run " + dir_.path()},
      {dir_.file("plain"), "cannot run " + dir_.file("plain")},
      {"/bin/false", "/bin/false failed to run normbench's probe (exit status 1)"},
      {"/bin/echo", "/bin/echo did not answer normbench's probe (is it a Python 3?)"},
      {script("missing_keys", "echo '{\"executable\": \"x\"}'"), "did not answer normbench's"},
      {script("wrong_types", "echo '{\"executable\": \"x\", \"path\": 5, \"library\": null}'"),
       "\"path\": 5; expected a list of strings"},
      {script("killed", "kill -9 $$"), "was killed by signal 9"},
  };
  for (const auto& c : cases) {
    std::string what;
    EXPECT_NO_THROW(what = refusal(c.interpreter)) << c.interpreter;
    EXPECT_TRUE(contains(what, c.message)) << c.interpreter << ": " << what;
  }
}

// A folder on the module path whose name is not UTF-8 comes to Python as a lone surrogate, which
// json.dumps writes as "\udcff" and normbench's parser refuses: a real Python was reported as
// "did not answer normbench's probe". Such a folder cannot reach the worker (its settings are
// JSON too) and is left out; the answer is read.
TEST_F(FindPython, AModulePathFolderNamedInAnotherEncodingIsLeftOut) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 on PATH";
  const char* before = getenv("PYTHONPATH");
  const std::string saved = before ? before : "";
  setenv("PYTHONPATH", "/tmp/normbench-not-utf8-\xff", 1);
  std::string what;
  PythonSetup s;
  try {
    setenv("NORMBENCH_PYTHON", "python3", 1);
    s = find_python("--torch");
  } catch (const UsageError& e) {
    what = e.what();  // no PyTorch or normbench_torch there: the answer was read all the same
  }
  if (before)
    setenv("PYTHONPATH", saved.c_str(), 1);
  else
    unsetenv("PYTHONPATH");
  EXPECT_FALSE(contains(what, "did not answer")) << what;
  for (const std::string& folder : s.path) EXPECT_FALSE(contains(folder, "not-utf8")) << folder;
}

TEST_F(FindPython, AProbeThatNeverAnswersIsStoppedAtItsTimeout) {
  // `exec`: the program itself sleeps, so that stopping it leaves nothing behind.
  const auto start = std::chrono::steady_clock::now();
  const std::string what = refusal(script("hangs", "exec sleep 60"), std::chrono::seconds(1));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_TRUE(contains(what, "did not answer normbench's probe within 1 s")) << what;
}

TEST_F(FindPython, AProbeThatClosesItsOutputButRunsOnIsStoppedToo) {
  const auto start = std::chrono::steady_clock::now();
  const std::string what =
      refusal(script("closes", "exec >&-; exec sleep 60"), std::chrono::seconds(1));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_TRUE(contains(what, "within 1 s")) << what;
}

TEST_F(FindPython, AProbeThatPrintsWithoutEndIsCut) {
  const std::string what = refusal(script("floods", "exec yes '{\"executable\": 1}'"));
  EXPECT_TRUE(contains(what, "printed more than 1 MiB")) << what;
}

}  // namespace
}  // namespace normbench
