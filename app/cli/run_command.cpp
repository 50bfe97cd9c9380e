// `normbench run`: verify and time every registered kernel on a config's problems, on one GPU,
// several (--devices), or a shard of the work (--shard K/N) for a job array or CI matrix.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/cli/command.hpp"
#include "app/cli/command_plugins.hpp"
#include "app/cli/decimal_option.hpp"
#include "app/cli/non_empty_option.hpp"
#include "app/cli/seed_option.hpp"
#include "app/config/config.hpp"
#include "app/python/python_candidates.hpp"
#include "app/render/report_summary.hpp"
#include "app/render/report_table.hpp"
#include "app/results/report_writer.hpp"
#include "app/results/tensor_dump.hpp"
#include "app/run/device_query.hpp"
#include "app/run/device_schedule.hpp"
#include "app/run/run_pipeline.hpp"
#include "app/run/work_plan.hpp"
#include "app/util/atomic_file.hpp"
#include "app/util/errors.hpp"
#include "app/util/json_text.hpp"
#include "reference/parallel_chunks.hpp"

namespace normbench {

namespace {

struct RunOptions {
  std::string config_path;  // empty: the built-in kernelbench config
  std::vector<std::string> problems;
  std::vector<std::string> kernels;
  std::string out;   // empty: normbench-<config name>.json
  int trials = 0;    // 0: as configured
  std::string seed;  // empty: as configured; else an unsigned 64-bit integer
  int device = 0;
  std::string devices;  // empty: --device alone; else "all" or "0,1,..."
  bool allow_mixed_devices = false;
  std::string shard;  // empty: all the work; else "K/N"
  int threads = 0;    // 0: NORMBENCH_THREADS or all hardware threads
  bool no_timing = false;
  bool allow_faster_than_copy = false;
  std::string save_tensors;
  std::vector<std::string> plugins;
  PythonCandidateOptions python;
};

int run(const RunOptions& o, const std::vector<std::string>& command_line) {
  const RunConfig config =
      o.config_path.empty() ? builtin_config() : load_config_file(o.config_path);
  // Before the filters are checked: --kernel may name a plugin's kernel.
  const std::vector<LoadedPlugin> plugins = load_command_plugins(config, o.plugins);
  RunSettings settings;
  settings.problem_filter = o.problems;
  settings.kernel_filter = o.kernels;
  if (o.trials > 0) settings.trials_override = o.trials;
  if (!o.seed.empty()) settings.seed_override = parse_seed_option(o.seed);
  settings.timing = !o.no_timing;
  settings.device = o.device;
  settings.threads = o.threads > 0 ? o.threads : default_thread_count();
  settings.save_tensors_dir = o.save_tensors;
  settings.allow_faster_than_copy = o.allow_faster_than_copy;
  settings.allow_mixed_devices = o.allow_mixed_devices;
  std::optional<DeviceSelection> devices;
  if (!o.devices.empty()) devices = parse_devices(o.devices);
  // Before the filters too; the variants must outlive the run.
  const std::vector<KernelVariant> candidates = python_candidates(o.python);
  auto plan = plan_run(config, settings, candidates);
  std::optional<ShardRecord> shard;
  if (!o.shard.empty()) {
    const ShardSpec spec = parse_shard(o.shard);
    shard =
        ShardRecord{spec.index, spec.count, plan_work(plan, settings.trials_override, spec.count)};
    plan = shard_of(plan, shard->work, spec.index);
  }
  const std::string out = o.out.empty() ? "normbench-" + config.name + ".json" : o.out;
  // Before the run, not after it, and before looking for a GPU.
  std::vector<std::string> inputs;
  for (const LoadedPlugin& plugin : plugins) inputs.push_back(plugin.path);
  if (!o.config_path.empty()) inputs.push_back(o.config_path);
  for (const std::string& file : o.python.kernelbench_files) inputs.push_back(file);
  refuse_overwriting_inputs("--out", out, inputs);
  check_writable(out);
  if (!o.save_tensors.empty()) check_tensor_root(o.save_tensors, out);
  if (devices) {
    settings.devices = resolve_devices(*devices, count_visible_devices(), o.devices);
    settings.device = settings.devices.front();
  }

  RunReport report = run_benchmarks(config, plan, settings, command_line);
  report.shard = shard;
  std::string summary_warning;
  const nlohmann::json written = with_problem_summary(report_to_json(report), out, summary_warning);
  if (!summary_warning.empty()) std::fprintf(stderr, "normbench: %s\n", summary_warning.c_str());
  write_file_atomically(out, json_text(written) + "\n");
  std::fputs(format_run_table(report).c_str(), stdout);
  std::printf("\nreport: %s\n", out.c_str());
  if (!report.aborted.empty()) std::fprintf(stderr, "normbench: %s\n", report.aborted.c_str());
  for (const ProblemResult& p : report.problems)
    if (!p.tensors_error.empty())
      std::fprintf(stderr, "normbench: --save-tensors: problem %s: %s\n", p.config->id.c_str(),
                   p.tensors_error.c_str());
  return report.exit_code;
}

}  // namespace

void add_run_command(CLI::App& app, CommandContext& context) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Verify and time every registered kernel on the problems of a config");
  cmd->add_option("--config", o->config_path,
                  "Config file (JSON); without it, the built-in configs/kernelbench.json")
      ->check(non_empty());
  cmd->add_option("--problem", o->problems, "Run only this problem id (repeatable)")
      ->check(non_empty());
  cmd->add_option("--kernel", o->kernels, "Run only this kernel id (repeatable)")
      ->check(non_empty());
  cmd->add_option("--out", o->out, "Report file (default: normbench-<config name>.json)")
      ->check(non_empty());
  cmd->add_option("--trials", o->trials, "Override the trials of every problem")
      ->transform(decimal_integer())
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", o->seed,
                  "Override the seed of every problem (an unsigned 64-bit integer)")
      ->check(non_empty());
  CLI::Option* device = cmd->add_option("--device", o->device, "CUDA device index")
                            ->transform(decimal_integer())
                            ->check(CLI::Range(0, 1023));
  cmd->add_option("--devices", o->devices,
                  "Spread the problems over these GPUs of this host, one worker each: all, or "
                  "indices such as 0,1 (one report; each kernel names its GPU)")
      ->excludes(device)
      ->check(non_empty());
  cmd->add_flag("--allow-mixed-devices", o->allow_mixed_devices,
                "Run on --devices of different GPU models (refused by default: their timings do "
                "not belong in one report)");
  cmd->add_option("--shard", o->shard,
                  "Run only shard K of N of the (problem, kernel) work, split by expected cost "
                  "the same way on every machine; `normbench merge` joins the shards' reports")
      ->check(non_empty());
  cmd->add_option("--threads", o->threads,
                  "Host threads for inputs, reference and verification (default: all; with several "
                  "GPUs, each GPU's harness uses this less one per other GPU)")
      ->transform(decimal_integer())
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--no-timing", o->no_timing, "Verify only; do not time");
  cmd->add_flag("--allow-faster-than-copy", o->allow_faster_than_copy,
                "A median faster than copying the problem's bytes is a warning (suspicious), "
                "not a failure");
  cmd->add_option("--plugin", o->plugins,
                  "Load kernels from this plugin (a shared library built against "
                  "normbench/plugin.h; repeatable)")
      ->check(non_empty());
  CLI::Option* torch =
      cmd->add_flag("--torch", o->python.torch,
                    "Also run PyTorch eager and torch.compile of each problem's op, as candidates "
                    "of this run (needs Python with PyTorch: python3, or NORMBENCH_PYTHON)");
  // Without --torch the mode would be ignored, and a run the user meant to compile with
  // max-autotune would run no PyTorch at all.
  cmd->add_option("--torch-compile-mode", o->python.compile_mode,
                  "torch.compile's mode for --torch: default, reduce-overhead, max-autotune or "
                  "max-autotune-no-cudagraphs")
      ->check(non_empty())
      ->needs(torch);
  cmd->add_option("--python", o->python.callables,
                  "Also run this Python function, module:function, called as function(x, weight, "
                  "bias, problem) (docs/pytorch.md; repeatable)")
      ->check(non_empty());
  cmd->add_option("--kernelbench", o->python.kernelbench_files,
                  "Also run this KernelBench-style file's ModelNew on the problems of its op "
                  "(repeatable)")
      ->check(non_empty());
  cmd->add_option("--save-tensors", o->save_tensors,
                  "Write inputs, outputs and reference of every trial as .npy under this folder")
      ->check(non_empty());
  cmd->callback([o, &context] { context.exit_code = run(*o, context.command_line); });
}

}  // namespace normbench
