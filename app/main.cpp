// normbench: verify and time CUDA normalization kernels. One subcommand per file in cli/;
// this file parses the command line and turns errors into documented exit codes.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "app/cli/compare_command.hpp"
#include "app/cli/list_command.hpp"
#include "app/cli/report_command.hpp"
#include "app/cli/run_command.hpp"
#include "app/util/errors.hpp"
#include "app/util/version.hpp"

int main(int argc, char** argv) {
  using namespace normbench;
  CLI::App app{
      "normbench: verify CUDA normalization kernels against a float64 reference and "
      "time them.\nExit codes: 0 all verified, 1 a kernel failed verification, "
      "2 bad usage or config, 3 CUDA/runtime error or no GPU; compare: 1 a regression, "
      "4 --strict and some verdict inconclusive."};
  app.set_version_flag("--version",
                       std::string("normbench ") + version() + " (" + git_revision() + ")");
  app.require_subcommand(1);

  RunOptions run_options;
  ListOptions list_options;
  ReportOptions report_options;
  CompareOptions compare_options;
  CLI::App* run = add_run_command(app, run_options);
  CLI::App* list = add_list_command(app, list_options);
  CLI::App* report = add_report_command(app, report_options);
  CLI::App* compare = add_compare_command(app, compare_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help and --version exit 0
  }

  const std::vector<std::string> command_line(argv, argv + argc);
  try {
    if (*run) return run_run_command(run_options, command_line);
    if (*list) return run_list_command(list_options);
    if (*report) return run_report_command(report_options);
    if (*compare) return run_compare_command(compare_options);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "normbench: %s\n", e.what());
    return kExitUsage;
  } catch (const RuntimeError& e) {
    std::fprintf(stderr, "normbench: %s\n", e.what());
    return kExitRuntime;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "normbench: out of host memory\n");
    return kExitRuntime;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "normbench: internal error: %s\n", e.what());
    return kExitRuntime;
  }
  return kExitUsage;
}
