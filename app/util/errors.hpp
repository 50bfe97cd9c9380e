// Exceptions that map to normbench's documented exit codes (README "Exit codes").
#pragma once

#include <stdexcept>
#include <string>

namespace normbench {

enum ExitCode : int {
  kExitOk = 0,            // every kernel verified (compare: no regression)
  kExitFailed = 1,        // a kernel failed verification or errored (compare: a regression)
  kExitUsage = 2,         // bad usage, bad config, unreadable report
  kExitRuntime = 3,       // CUDA/runtime error, or no GPU
  kExitInconclusive = 4,  // compare --strict: some verdicts are inconclusive
};

// Bad command line, config or input file: exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A config that does not parse or validate; the message names file, JSON path and what is allowed.
struct ConfigError : UsageError {
  using UsageError::UsageError;
};

// No GPU, or a CUDA call that failed outside any one kernel: exit 3.
struct RuntimeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An output file that could not be written once its path had been accepted (a full disk, an
// I/O error): the machine's failure, not the command line's, so exit 3 as for standard output.
struct OutputError : RuntimeError {
  using RuntimeError::RuntimeError;
};

}  // namespace normbench
