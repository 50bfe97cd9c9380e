// In the device worker: the Python interpreter that runs Python candidates, loaded at run time
// (dlopen of the libpython that find_python chose), so that normbench builds and runs without
// Python. Every call goes to one module, normbench_torch.bridge, whose functions take and
// return one JSON text: the C++ side needs only a handful of Python's C functions, and none of
// its headers.
//
// The interpreter starts in the worker, never in the harness: the harness forks workers, and a
// CUDA context or a Python runtime with threads does not survive a fork.
#pragma once

#include <string>

#include "app/python/python_setup.hpp"

namespace normbench {

// Starts the interpreter on first use (throws RuntimeError naming what failed: the library, a
// missing function, the bridge's import), then calls normbench_torch.bridge.<function>(argument)
// with the GIL held and returns the str it returns. A Python exception that escapes the bridge
// comes back as RuntimeError with its text.
std::string call_python_bridge(const PythonSetup& setup, const char* function,
                               const std::string& argument);

}  // namespace normbench
