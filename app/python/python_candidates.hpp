// Python candidates as kernels of the one harness: PyTorch eager and torch.compile (--torch),
// functions (--python module:function) and KernelBench-style ModelNew files (--kernelbench
// FILE.py). Each is a KernelVariant like a built-in or plugin kernel, one per op: its plan and
// launch call normbench_torch.bridge in the worker's embedded interpreter
// (app/python/embedded_python.hpp), on normbench's own device buffers and stream, so that it
// gets the same inputs, guards, integrity checks, activity accounting, watchdog, timing and
// report as every other kernel.
#pragma once

#include <string>
#include <vector>

#include "kernels/registry.hpp"

namespace normbench {

struct PythonCandidateOptions {
  bool torch = false;                    // torch.eager and torch.compile
  std::string compile_mode = "default";  // torch.compile's mode
  std::vector<std::string> callables;    // module:function
  std::vector<std::string> kernelbench_files;
  bool any() const { return torch || !callables.empty() || !kernelbench_files.empty(); }
};

// How long the GPU is held before a Python candidate's timed sample: its launch call (Python's
// dispatch, PyTorch's, a compiled graph's guards) must be queued before the GPU reaches the
// start record. About what torch.cuda._sleep(2,000,000 cycles) holds an H100 for.
inline constexpr double kPythonHoldUs = 1000.0;

// The variants of the requested candidates for every op, in the order asked; empty when none
// is. Checks the options, then finds Python (find_python). Throws UsageError (exit 2) for a spec
// that is not module:function of Python names, a KernelBench file that is not a readable,
// non-empty regular FILE.py with a UTF-8 name, two candidates with one id, or a Python without
// PyTorch.
std::vector<KernelVariant> python_candidates(const PythonCandidateOptions& options);

// The id a candidate gets: "python.<module>.<function>", "kernelbench.<file stem>" (characters
// other than letters, digits, '_' and '-' become '_'). Throws UsageError for a spec that is not
// module:function, each a Python name (a path, "..", spaces or control characters).
std::string callable_id(const std::string& spec);
std::string kernelbench_id(const std::string& path);

}  // namespace normbench
