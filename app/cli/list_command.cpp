// `normbench list`: every op and registered kernel variant; needs no GPU.
#include <memory>

#include "app/cli/command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "kernels/registry.hpp"

namespace normbench {

namespace {

int list(bool as_json) {
  if (as_json) {
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

}  // namespace

void add_list_command(CLI::App& app, CommandContext& context) {
  auto as_json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("list", "List every op and registered kernel (no GPU needed)");
  cmd->add_flag("--json", *as_json, "Print as JSON");
  cmd->callback([as_json, &context] { context.exit_code = list(*as_json); });
}

}  // namespace normbench
