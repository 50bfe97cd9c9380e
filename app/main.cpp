// normbench: verify and time CUDA normalization kernels. One subcommand per file in cli/;
// this file lists them, parses the command line and turns errors into documented exit codes.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <new>
#include <string>

#include "app/cli/command.hpp"
#include "app/util/errors.hpp"
#include "app/util/version.hpp"

int main(int argc, char** argv) {
  using namespace normbench;
  CLI::App app{
      "normbench: verify CUDA normalization kernels against a float64 reference and "
      "time them.\nExit codes: 0 all verified, 1 a kernel failed verification, "
      "2 bad usage or config, 3 CUDA/runtime error or no GPU; compare: 1 a regression, "
      "4 --strict and some verdict inconclusive; merge: 2 a refused combination of shards."};
  app.set_version_flag("--version",
                       std::string("normbench ") + version() + " (" + git_revision() + ")");
  app.require_subcommand(1);

  CommandContext context{std::vector<std::string>(argv, argv + argc)};
  add_run_command(app, context);
  add_list_command(app, context);
  add_plan_command(app, context);
  add_compare_command(app, context);
  add_report_command(app, context);
  add_merge_command(app, context);

  try {
    app.parse(argc, argv);  // runs the chosen subcommand's callback
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help and --version exit 0
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
  return context.exit_code;
}
