// `normbench run`: verify and time every registered kernel on a config's problems.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace normbench {

struct RunOptions {
  std::string config_path;  // empty: the built-in kernelbench config
  std::vector<std::string> problems;
  std::vector<std::string> kernels;
  std::string out;    // empty: normbench-<config name>.json
  int trials = 0;     // 0: as configured
  int64_t seed = -1;  // -1: as configured
  int device = 0;
  int threads = 0;  // 0: NORMBENCH_THREADS or all hardware threads
  bool no_timing = false;
  std::string save_tensors;
};

CLI::App* add_run_command(CLI::App& app, RunOptions& options);
int run_run_command(const RunOptions& options, const std::vector<std::string>& command_line);

}  // namespace normbench
