// `normbench report`: merge JSON reports (a normbench run, a PyTorch run of
// scripts/torch_baseline.py, ...) into one HTML page with charts or Markdown tables.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace normbench {

struct ReportOptions {
  std::vector<std::string> inputs;
  std::string out;              // FILE.html, FILE.md, or "-" for standard output
  std::string format = "auto";  // auto (from the --out extension), html, markdown
  bool allow_mismatch = false;
};

CLI::App* add_report_command(CLI::App& app, ReportOptions& options);
int run_report_command(const ReportOptions& options);

}  // namespace normbench
