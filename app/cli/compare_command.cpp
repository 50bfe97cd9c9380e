// `normbench compare BASELINE.json CANDIDATE.json`: per kernel, faster, slower, same or
// inconclusive (and correctness changes); exits 1 on a regression. Needs no GPU.
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <regex>

#include "app/cli/command.hpp"
#include "app/cli/decimal_option.hpp"
#include "app/compare/compare.hpp"
#include "app/compare/compare_format.hpp"
#include "app/results/report_reader.hpp"
#include "app/util/json_text.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

namespace {

struct CompareOptions {
  std::string baseline;
  std::string candidate;
  std::string format = "table";  // table, markdown or json
  bool json = false;             // same as --format json
  CompareSettings settings;
};

// The bounds of the gate's settings. --alpha below 1e-6 asks the normal approximation of the U
// test for a tail it does not give accurately. Above 0.5 noise alone is called significant.
// Within the bounds, sample counts too small for the test to reach alpha make a slowdown by
// the medians an untested one (exit 4), not a pass.
constexpr double kMinAlpha = 1e-6, kMaxAlpha = 0.5;
constexpr double kMaxSlowdown = 100.0;  // a 101x ratio; beyond it the gate means nothing

// A decimal number in [low, high]. CLI::Range lets NaN through (every comparison with it is
// false), and NaN as a threshold would turn the gate off; strtod alone would also take hex
// ("0x10"), "inf" and leading blanks, so the text must be plain decimal first. A value too
// small for a double (1e-320) is taken as the nearest one and range-checked as such.
CLI::Validator finite_number_in(double low, double high) {
  const std::string allowed = fmt::format("a decimal number from {:g} to {:g}", low, high);
  return CLI::Validator(
      [low, high, allowed](std::string& text) -> std::string {
        static const std::regex decimal(R"([+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)");
        if (!std::regex_match(text, decimal))
          return "\"" + shown(text) + "\" is not a decimal number; allowed: " + allowed;
        const double value = std::strtod(text.c_str(), nullptr);
        if (!std::isfinite(value) || value < low || value > high)
          return shown(text) + " is out of range; allowed: " + allowed;
        return "";
      },
      allowed);
}

int compare(const CompareOptions& o) {
  const LoadedReport baseline = read_report_file(o.baseline);
  const LoadedReport candidate = read_report_file(o.candidate);
  const Comparison comparison = compare_reports(baseline, candidate, o.settings);
  for (const auto& w : comparison.warnings)
    std::fprintf(stderr, "normbench: warning: %s\n", w.c_str());
  const std::string format = o.json ? "json" : o.format;
  if (format == "json")
    std::puts(json_text(compare_to_json(comparison)).c_str());
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
      "2 bad usage, unreadable report or refused mismatch, 4 a kernel slower by its medians "
      "whose samples are too few to show it or were taken while the GPU throttled, no kernel in "
      "both reports, or --strict and some "
      "verdict inconclusive.");
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
                  "1 / (1 + this); from 0 to 100 (default 0.05)")
      ->check(finite_number_in(0.0, kMaxSlowdown));
  cmd->add_option("--alpha", s.alpha,
                  "Significance level of the two-sided Mann-Whitney U test, from 1e-6 to 0.5 "
                  "(default 0.01): below 1e-6 the test's normal approximation is not accurate; "
                  "above 0.5 noise alone is significant. A kernel slower by its medians whose "
                  "sample counts cannot reach it (5 vs 5: p 0.012 at best) exits 4")
      ->check(finite_number_in(kMinAlpha, kMaxAlpha));
  cmd->add_option("--min-samples", s.min_samples,
                  "Fewer timing samples on either side: inconclusive, and exit 4 where the "
                  "medians say slower (default 5)")
      ->transform(decimal_integer())
      ->check(CLI::Range(3, 1000000));
  cmd->add_flag("--allow-missing", s.allow_missing,
                "A kernel missing from the candidate, or no longer run there (not_supported, "
                "skipped), is not a regression; one its run did not reach (not_run) still is");
  cmd->add_flag("--allow-mismatch", s.allow_mismatch,
                "Compare reports of different GPU models or configs, or with different problems "
                "under one id, anyway (with a warning)");
  cmd->add_flag("--strict", s.strict,
                "Exit 4 when some verdict is inconclusive, or not_timed (a kernel that passed "
                "without a time), and none regressed");
  cmd->callback([options, &context] { context.exit_code = compare(*options); });
}

}  // namespace normbench
