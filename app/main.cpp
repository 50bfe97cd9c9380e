// normbench: verify and time CUDA normalization kernels. One subcommand per file in cli/;
// this file lists them, parses the command line and turns errors into documented exit codes.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "app/cli/command.hpp"
#include "app/util/errors.hpp"
#include "app/util/shown_text.hpp"
#include "app/util/version.hpp"

namespace {

// Output that did not reach standard output (a full disk, a closed pipe) must not end in exit
// 0: a script reading `normbench plan --json > plan.json` would take an empty file for a plan.
bool standard_output_failed() {
  return std::fflush(stdout) != 0 || std::ferror(stdout);
}

int standard_output_error() {
  std::fprintf(stderr, "normbench: cannot write to standard output: %s\n", std::strerror(errno));
  return normbench::kExitRuntime;
}

// A message as the terminal shows it: user text inside is bounded where it was added; this
// escapes control characters whatever their source.
void print_error(const char* prefix, const char* what) {
  std::fprintf(stderr, "normbench: %s%s\n", prefix, normbench::shown(what, 8000).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace normbench;
  // A reader that closes the pipe early (`normbench compare ... | head`) must get exit 3 and a
  // message from the write checks below, not a silent death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{
      "normbench: verify CUDA normalization kernels against a float64 reference and "
      "time them.\nExit codes: 0 all verified, 1 a kernel failed verification, "
      "2 bad usage or config, 3 CUDA/runtime error, no GPU or standard output not written; "
      "compare: 1 a regression, "
      "4 a slowdown its samples could not show (too few, or throttled), or --strict and some "
      "verdict inconclusive; "
      "merge: 2 a refused combination of shards."};
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

  // CLI11 says only "A subcommand is required" for a word that names none.
  if (argc > 1 && argv[1][0] != '-' &&
      app.get_subcommands([&](const CLI::App* command) { return command->get_name() == argv[1]; })
          .empty()) {
    std::string allowed;
    for (const CLI::App* command : app.get_subcommands({}))
      allowed += (allowed.empty() ? "" : ", ") + command->get_name();
    print_error("", ("unknown command \"" + std::string(argv[1]) + "\"; allowed: " + allowed +
                     " (normbench --help)")
                        .c_str());
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);  // runs the chosen subcommand's callback
  } catch (const CLI::ParseError& e) {
    if (app.exit(e) != 0) return kExitUsage;
    // --help and --version exit 0 where their text was written.
    return standard_output_failed() ? standard_output_error() : kExitOk;
  } catch (const UsageError& e) {
    print_error("", e.what());
    return kExitUsage;
  } catch (const RuntimeError& e) {
    print_error("", e.what());
    return kExitRuntime;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "normbench: out of host memory\n");
    return kExitRuntime;
  } catch (const std::exception& e) {
    if (standard_output_failed()) return standard_output_error();  // fmt::print threw
    print_error("internal error: ", e.what());
    return kExitRuntime;
  }
  if (standard_output_failed()) return standard_output_error();
  return context.exit_code;
}
