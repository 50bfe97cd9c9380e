// `normbench compare BASELINE.json CANDIDATE.json`: per kernel, faster, slower, same or
// inconclusive (and correctness changes); exits 1 on a regression. Needs no GPU.
#include <memory>

#include "app/cli/command.hpp"
#include "app/compare/compare.hpp"

#include <cstdio>

#include "app/compare/compare_format.hpp"
#include "app/results/report_reader.hpp"

namespace normbench {

namespace {

struct CompareOptions {
  std::string baseline;
  std::string candidate;
  std::string format = "table";  // table, markdown or json
  bool json = false;             // same as --format json
  CompareSettings settings;
};

int compare(const CompareOptions& o) {
  const LoadedReport baseline = read_report_file(o.baseline);
  const LoadedReport candidate = read_report_file(o.candidate);
  const Comparison comparison = compare_reports(baseline, candidate, o.settings);
  for (const auto& w : comparison.warnings)
    std::fprintf(stderr, "normbench: warning: %s\n", w.c_str());
  const std::string format = o.json ? "json" : o.format;
  if (format == "json")
    std::puts(compare_to_json(comparison).dump(2).c_str());
  else if (format == "markdown")
    std::fputs(format_compare_markdown(comparison).c_str(), stdout);
  else
    std::fputs(format_compare_table(comparison).c_str(), stdout);
  return comparison.exit_code;
}

}  // namespace

void add_compare_command(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<CompareOptions>();
  CompareOptions& o = *options;
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare two run reports kernel by kernel: faster, slower, same or inconclusive (no GPU "
      "needed).\nExit codes: 0 no regression, 1 a regression (slower, failed now, missing), "
      "2 bad usage, unreadable report or refused mismatch, 4 --strict and some verdict "
      "inconclusive.");
  cmd->add_option("baseline", o.baseline, "Baseline report (JSON from normbench run)")->required();
  cmd->add_option("candidate", o.candidate, "Candidate report (JSON from normbench run)")
      ->required();
  CLI::Option* format =
      cmd->add_option("--format", o.format, "Output: table (default), markdown, json")
          ->check(CLI::IsMember({"table", "markdown", "json"}));
  cmd->add_flag("--json", o.json, "Same as --format json")->excludes(format);
  CompareSettings& s = o.settings;
  cmd->add_option("--max-slowdown", s.max_slowdown,
                  "Minimum effect: slower above a median ratio of 1 + this, faster below "
                  "1 / (1 + this) (default 0.05)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--alpha", s.alpha,
                  "Significance level of the two-sided Mann-Whitney U test (default 0.01)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--min-samples", s.min_samples,
                  "Fewer timing samples on either side: inconclusive (default 5)")
      ->check(CLI::Range(3, 1000000));
  cmd->add_flag("--allow-missing", s.allow_missing,
                "A kernel missing from the candidate (or no longer run) is not a regression");
  cmd->add_flag("--allow-mismatch", s.allow_mismatch,
                "Compare reports of different GPU models or configs anyway (with a warning)");
  cmd->add_flag("--strict", s.strict,
                "Exit 4 when some verdict is inconclusive (and none regressed)");
  cmd->callback([options, &context] { context.exit_code = compare(*options); });
}

}  // namespace normbench
