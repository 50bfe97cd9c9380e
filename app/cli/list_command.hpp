// `normbench list`: every op and registered kernel variant; needs no GPU.
#pragma once

#include <CLI/CLI.hpp>

namespace normbench {

struct ListOptions {
  bool json = false;
};

CLI::App* add_list_command(CLI::App& app, ListOptions& options);
int run_list_command(const ListOptions& options);

}  // namespace normbench
