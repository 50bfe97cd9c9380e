#include "app/cli/list_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "kernels/registry.hpp"

namespace normbench {

CLI::App* add_list_command(CLI::App& app, ListOptions& o) {
  CLI::App* cmd = app.add_subcommand("list", "List every op and registered kernel (no GPU needed)");
  cmd->add_flag("--json", o.json, "Print as JSON");
  return cmd;
}

int run_list_command(const ListOptions& o) {
  if (o.json) {
    nlohmann::json ops = nlohmann::json::array();
    for (Op op : kAllOps) {
      nlohmann::json kernels = nlohmann::json::array();
      for (const auto& k : registered_kernels())
        if (k.op == op)
          kernels.push_back(
              {{"id", k.id}, {"description", k.description}, {"is_baseline", k.is_baseline}});
      ops.push_back(
          {{"op", op_name(op)}, {"description", op_description(op)}, {"kernels", kernels}});
    }
    std::puts(nlohmann::json{{"ops", ops}}.dump(2).c_str());
    return 0;
  }
  for (Op op : kAllOps) {
    fmt::print("{}: {}\n", op_name(op), op_description(op));
    for (const auto& k : registered_kernels())
      if (k.op == op)
        fmt::print("  {:<44} {}{}\n", k.id, k.is_baseline ? "[baseline] " : "", k.description);
  }
  return 0;
}

}  // namespace normbench
