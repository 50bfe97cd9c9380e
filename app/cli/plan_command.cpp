// `normbench plan --config X [--json]`: the problems of a config as a run would make them,
// without a GPU: every default resolved, the geometry, each trial's seed, the config hash and
// the kernels registered for each op. Other tools read this instead of parsing configs
// themselves. With --shard K/N, the problems and kernels of that shard,
// and the whole split (every (problem, kernel) pair, its expected cost and its shard).
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/command.hpp"
#include "app/cli/command_plugins.hpp"
#include "app/cli/decimal_option.hpp"
#include "app/cli/non_empty_option.hpp"
#include "app/cli/seed_option.hpp"
#include "app/config/config.hpp"
#include "app/inputs/inputs.hpp"
#include "app/results/report_writer.hpp"
#include "app/run/problem_runner.hpp"
#include "app/run/work_plan.hpp"
#include "app/util/json_text.hpp"
#include "app/util/version.hpp"
#include "reference/normalization_reference.hpp"

namespace normbench {

namespace {

using json = nlohmann::json;

struct PlanOptions {
  std::string config_path;
  std::vector<std::string> problems;
  std::vector<std::string> kernels;
  int trials = 0;
  std::string seed;   // empty: as configured
  std::string shard;  // empty: all the work; else "K/N"
  bool json = false;
  std::vector<std::string> plugins;
};

// Everything a tool needs to make and check the problem's tensors as normbench does: the
// element types and layout, which inputs and outputs exist (in the order KernelArgs has them).
json geometry_json(const ProblemShape& s) {
  json inputs = json::array();
  for (Input input : problem_inputs(s)) inputs.push_back(input_name(input));
  json outputs = json::array();
  for (Output output : problem_outputs(s)) outputs.push_back(output_name(output));
  return {{"num_elements", s.num_elements},
          {"num_segments", s.num_segments},
          {"segment_size", s.segment_size},
          {"channels", s.channels},
          {"spatial", s.spatial},
          {"param_size", s.param_size},
          {"param_shape", param_shape(s)},
          {"min_bytes", s.min_bytes()},
          {"read_bytes", s.read_bytes()},
          {"write_bytes", s.write_bytes()},
          {"dtype", dtype_name(s.dtype)},
          {"param_dtype", dtype_name(s.param_dtype)},
          {"layout", layout_name(s.layout)},
          {"affine", s.affine},
          {"has_bias", s.has_bias},
          {"has_residual", s.has_residual()},
          {"inputs", inputs},
          {"outputs", outputs}};
}

// "bfloat16", "float16 nhwc", "bfloat16/float32" (data/params when they differ).
std::string format_text(const json& geometry) {
  std::string text = geometry["dtype"].get<std::string>();
  if (geometry["param_dtype"] != geometry["dtype"])
    text += "/" + geometry["param_dtype"].get<std::string>();
  if (geometry["layout"] == "nhwc") text += " nhwc";
  return text;
}

int plan(const PlanOptions& o) {
  const RunConfig config =
      o.config_path.empty() ? builtin_config() : load_config_file(o.config_path);
  load_command_plugins(config, o.plugins);
  RunSettings settings;
  settings.problem_filter = o.problems;
  settings.kernel_filter = o.kernels;
  auto planned = plan_run(config, settings);
  const std::optional<int> trials_override =
      o.trials > 0 ? std::optional<int>(o.trials) : std::nullopt;
  json shard = nullptr;
  std::string split;  // for the text output
  if (!o.shard.empty()) {
    const ShardSpec spec = parse_shard(o.shard);
    const std::vector<WorkEntry> work = plan_work(planned, trials_override, spec.count);
    const std::vector<uint64_t> loads = shard_loads(planned, work, trials_override, spec.count);
    size_t pairs = 0;
    for (const WorkEntry& w : work) pairs += w.shard == spec.index;
    uint64_t total = 0;
    for (uint64_t load : loads) total = saturating_add(total, load);
    split = fmt::format(
        "shard {}/{}: {} of {} (problem, kernel) pairs; expected load {} of {} (MiB moved, "
        "problem setups included)\n",
        spec.index, spec.count, pairs, work.size(), loads[static_cast<size_t>(spec.index - 1)],
        total);
    shard = {
        {"index", spec.index}, {"count", spec.count}, {"loads", loads}, {"work", work_json(work)}};
    planned = shard_of(planned, work, spec.index);
  }

  json problems = json::array();
  for (const PlannedProblem& p : planned) {
    const ProblemConfig& c = *p.problem;
    // As a timed run makes them: at least two (the second-to-last is the timing's fresh inputs).
    RunSettings timed;
    timed.trials_override = trials_override;
    const int trials = trials_to_run(c, timed);
    const uint64_t base = o.seed.empty() ? c.seed : parse_seed_option(o.seed);
    json seeds = json::array();
    for (int t = 0; t < trials; ++t) seeds.push_back(base + static_cast<uint64_t>(t));
    json kernels = json::array();
    for (const KernelVariant* k : p.kernels) kernels.push_back(k->id);
    problems.push_back({{"id", c.id},
                        {"resolved", c.resolved},
                        {"geometry", geometry_json(c.shape)},
                        {"trials", trials},
                        {"seeds", seeds},
                        {"kernels", kernels}});
  }
  const json out = {
      {"kind", "normbench-plan"},
      {"version", 1},
      {"tool", {{"name", "normbench"}, {"version", version()}, {"git_revision", git_revision()}}},
      {"config",
       {{"name", config.name},
        {"source", config.source},
        {"hash", config.hash},
        {"resolved", config.resolved}}},
      {"shard", shard},
      {"problems", problems}};
  if (o.json) {
    std::puts(json_text(out).c_str());
    return 0;
  }
  fmt::print("config {} ({}), hash {}\n", config.name, config.source, config.hash);
  fmt::print("{}", split);
  for (const json& p : problems)
    fmt::print("  {:<28} {:<22} {:<17} {} x {} elements, {} trials, {} kernels\n",
               p["id"].get<std::string>(), p["resolved"]["op"].get<std::string>(),
               format_text(p["geometry"]), p["geometry"]["num_segments"].get<int64_t>(),
               p["geometry"]["segment_size"].get<int64_t>(), p["trials"].get<int>(),
               p["kernels"].size());
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, CommandContext& context) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "Print a config's problems as a run would make them: resolved settings, geometry, "
      "seeds, config hash, kernels (no GPU needed)");
  cmd->add_option("--config", o->config_path,
                  "Config file (JSON); without it, the built-in configs/kernelbench.json")
      ->check(non_empty());
  cmd->add_option("--problem", o->problems, "Only this problem id (repeatable)")
      ->check(non_empty());
  cmd->add_option("--kernel", o->kernels, "Only this kernel id (repeatable)")->check(non_empty());
  cmd->add_option("--trials", o->trials, "Override the trials of every problem")
      ->transform(decimal_integer())
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", o->seed,
                  "Override the seed of every problem (an unsigned 64-bit integer)")
      ->check(non_empty());
  cmd->add_option("--shard", o->shard,
                  "Only shard K of N of the (problem, kernel) work, as `normbench run --shard` "
                  "splits it")
      ->check(non_empty());
  cmd->add_option("--plugin", o->plugins, "Load kernels from this plugin too (repeatable)")
      ->check(non_empty());
  cmd->add_flag("--json", o->json, "Print as JSON (what tools read)");
  cmd->callback([o, &context] { context.exit_code = plan(*o); });
}

}  // namespace normbench
