#include "app/cli/run_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "app/config/config.hpp"
#include "app/render/report_table.hpp"
#include "app/results/report_json.hpp"
#include "app/run/run_pipeline.hpp"
#include "app/util/atomic_file.hpp"
#include "app/util/errors.hpp"
#include "reference/parallel_chunks.hpp"

namespace normbench {

CLI::App* add_run_command(CLI::App& app, RunOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "run", "Verify and time every registered kernel on the problems of a config");
  cmd->add_option("--config", o.config_path,
                  "Config file (JSON); without it, the built-in configs/kernelbench.json");
  cmd->add_option("--problem", o.problems, "Run only this problem id (repeatable)");
  cmd->add_option("--kernel", o.kernels, "Run only this kernel id (repeatable)");
  cmd->add_option("--out", o.out, "Report file (default: normbench-<config name>.json)");
  cmd->add_option("--trials", o.trials, "Override the trials of every problem")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", o.seed, "Override the seed of every problem")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--device", o.device, "CUDA device index")->check(CLI::NonNegativeNumber);
  cmd->add_option("--threads", o.threads, "Host threads for inputs and reference (default: all)")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--no-timing", o.no_timing, "Verify only; do not time");
  cmd->add_option("--save-tensors", o.save_tensors,
                  "Write inputs, outputs and reference of every trial as .npy under this folder");
  return cmd;
}

int run_run_command(const RunOptions& o, const std::vector<std::string>& command_line) {
  const RunConfig config =
      o.config_path.empty() ? builtin_config() : load_config_file(o.config_path);
  RunSettings settings;
  settings.problem_filter = o.problems;
  settings.kernel_filter = o.kernels;
  if (o.trials > 0) settings.trials_override = o.trials;
  if (o.seed >= 0) settings.seed_override = static_cast<uint64_t>(o.seed);
  settings.timing = !o.no_timing;
  settings.device = o.device;
  settings.threads = o.threads > 0 ? o.threads : default_thread_count();
  settings.save_tensors_dir = o.save_tensors;
  const auto plan = plan_run(config, settings);
  const std::string out = o.out.empty() ? "normbench-" + config.name + ".json" : o.out;
  check_writable(out);  // before the run, not after it

  const RunReport report = run_benchmarks(config, plan, settings, command_line);
  write_file_atomically(out, report_to_json(report).dump(2) + "\n");
  std::fputs(format_run_table(report).c_str(), stdout);
  std::printf("\nreport: %s\n", out.c_str());
  if (!report.aborted.empty()) std::fprintf(stderr, "normbench: %s\n", report.aborted.c_str());
  return report.exit_code;
}

}  // namespace normbench
