// `normbench merge A.json B.json ... --out ALL.json`: the reports of the shards of one run
// (normbench run --shard K/N) joined into one report, which compare and report read like any
// other. Every check and what the merged report holds: app/results/merge_shards.hpp.
#include <cstdio>
#include <memory>

#include "app/cli/command.hpp"
#include "app/cli/non_empty_option.hpp"
#include "app/render/report_summary.hpp"
#include "app/results/merge_shards.hpp"
#include "app/util/atomic_file.hpp"
#include "app/util/errors.hpp"
#include "app/util/json_text.hpp"
#include "app/util/timestamp.hpp"

namespace normbench {

namespace {

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
  bool allow_mismatch = false;
};

int merge(const MergeOptions& o, const std::vector<std::string>& command_line) {
  check_output_path(o.out);  // before reading the inputs
  refuse_overwriting_inputs("--out", o.out, o.inputs);
  std::vector<ShardReport> shards;
  for (const auto& path : o.inputs) shards.push_back(read_shard_report(path));
  const MergedReport merged =
      merge_shard_reports(shards, o.allow_mismatch, command_line, utc_now_iso8601());
  for (const auto& w : merged.warnings) std::fprintf(stderr, "normbench: warning: %s\n", w.c_str());
  std::string summary_warning;
  const nlohmann::json written = with_problem_summary(merged.report, o.out, summary_warning);
  if (!summary_warning.empty()) std::fprintf(stderr, "normbench: %s\n", summary_warning.c_str());
  write_file_atomically(o.out, json_text(written) + "\n");
  const auto& summary = merged.report.at("summary");
  std::printf(
      "merged %zu shards: %d kernels of %zu problems (%d passed, %d failed, %d error) -> %s\n",
      shards.size(), summary.at("kernels").get<int>(), merged.report.at("problems").size(),
      summary.at("passed").get<int>(), summary.at("failed").get<int>(),
      summary.at("error").get<int>(), o.out.c_str());
  return kExitOk;
}

}  // namespace

void add_merge_command(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<MergeOptions>();
  MergeOptions& o = *options;
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "Join the reports of the shards of one run (normbench run --shard K/N, every K once) into "
      "one report for compare and report (no GPU needed).\nExit codes: 0 merged, 2 bad usage, "
      "unreadable report or refused combination (other tool, config, settings, GPU model or "
      "shard count; a shard missing or given twice; gaps or overlaps), nothing written.");
  cmd->add_option("reports", o.inputs, "The shards' reports (JSON)")->required();
  cmd->add_option("--out,-o", o.out, "The merged report (JSON; written atomically)")
      ->required()
      ->check(non_empty());
  cmd->add_flag("--allow-mismatch", o.allow_mismatch,
                "Merge shards that ran on different GPU models anyway (with a warning)");
  cmd->callback([options, &context] { context.exit_code = merge(*options, context.command_line); });
}

}  // namespace normbench
