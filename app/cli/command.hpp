// What main hands every subcommand: the command line (for the report) and where the
// subcommand's callback leaves its exit code. Each subcommand file owns its options and its
// callback (`add_<name>_command`); main only lists them.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace normbench {

struct CommandContext {
  std::vector<std::string> command_line;
  int exit_code = 2;  // set by the subcommand that ran
};

void add_run_command(CLI::App& app, CommandContext& context);
void add_list_command(CLI::App& app, CommandContext& context);
void add_compare_command(CLI::App& app, CommandContext& context);
void add_report_command(CLI::App& app, CommandContext& context);
void add_plan_command(CLI::App& app, CommandContext& context);
void add_merge_command(CLI::App& app, CommandContext& context);

}  // namespace normbench
