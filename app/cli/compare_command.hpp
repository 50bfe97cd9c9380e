// `normbench compare BASELINE.json CANDIDATE.json`: per kernel, faster, slower, same or
// inconclusive (and correctness changes); exits 1 on a regression. Needs no GPU.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "app/compare/compare.hpp"

namespace normbench {

struct CompareOptions {
  std::string baseline;
  std::string candidate;
  std::string format = "table";  // table, markdown or json
  bool json = false;             // same as --format json
  CompareSettings settings;
};

CLI::App* add_compare_command(CLI::App& app, CompareOptions& options);
int run_compare_command(const CompareOptions& options);

}  // namespace normbench
