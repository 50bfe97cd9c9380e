// Which Python the worker embeds for Python candidates (--torch, --python, --kernelbench), found
// by the harness before the run: it runs that Python once (NORMBENCH_PYTHON, else python3 on
// PATH) and asks it for its shared libpython, its module path and PyTorch. The harness itself
// never loads Python; a worker loads it the first time it plans a Python candidate.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace normbench {

struct PythonSetup {
  std::string executable;         // sys.executable: what torch.compile's workers run
  std::string library;            // the shared libpython to load
  std::string home;               // sys.base_prefix: where the standard library lies
  std::vector<std::string> path;  // sys.path, with normbench_torch's folder
  std::string version;            // "3.12.3"
  std::string torch_version;      // "2.11.0+cu130"
};

// How long the probe may take: importing PyTorch cold from a network file system takes tens of
// seconds; a program that has not answered in two minutes is stuck (an import that waits on a
// lock, a NORMBENCH_PYTHON that reads its standard input), and the run would never start.
inline constexpr std::chrono::seconds kPythonProbeTimeout{120};

// Finds the Python for `what` ("--torch", say). Throws UsageError (exit 2) saying what is missing
// and how to fix it: no such interpreter, a program that is no Python or does not answer within
// `timeout` (it is killed), a Python without a shared libpython, no PyTorch, or no
// normbench_torch package.
PythonSetup find_python(const std::string& what,
                        std::chrono::seconds timeout = kPythonProbeTimeout);

// The probe's answer, parsed; separate for tests. Throws UsageError as find_python, also for an
// answer whose fields have other types than the probe's (another program's JSON).
PythonSetup python_setup_from(const std::string& probe_output, const std::string& interpreter,
                              const std::string& what);

}  // namespace normbench
