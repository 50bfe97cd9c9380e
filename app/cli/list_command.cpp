// `normbench list`: every op and registered kernel variant, plugins' included; needs no GPU.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/command.hpp"
#include "app/cli/non_empty_option.hpp"
#include "app/plugin/plugin_loader.hpp"
#include "app/util/json_text.hpp"
#include "app/util/shown_text.hpp"
#include "kernels/registry.hpp"

namespace normbench {

namespace {

struct ListOptions {
  bool json = false;
  std::vector<std::string> plugins;
};

int list(const ListOptions& o) {
  load_plugins(o.plugins);
  if (o.json) {
    nlohmann::json ops = nlohmann::json::array();
    for (Op op : kAllOps) {
      nlohmann::json kernels = nlohmann::json::array();
      for (const auto& k : registered_kernels())
        if (k.op == op)
          kernels.push_back(
              {{"id", k.id},
               {"description", k.description},
               {"is_baseline", k.is_baseline},
               {"origin", k.origin.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.origin)}});
      ops.push_back(
          {{"op", op_name(op)}, {"description", op_description(op)}, {"kernels", kernels}});
    }
    std::puts(json_text(nlohmann::json{{"ops", ops}}).c_str());
    return 0;
  }
  for (Op op : kAllOps) {
    fmt::print("{}: {}\n", op_name(op), op_description(op));
    for (const auto& k : registered_kernels())
      if (k.op == op)
        fmt::print("  {:<44} {}{}{}\n", k.id, k.is_baseline ? "[baseline] " : "",
                   shown(k.description, 500),  // a plugin's: bounded, no escape sequences
                   k.origin.empty() ? "" : " [plugin " + shown(k.origin, 500) + "]");
  }
  return 0;
}

}  // namespace

void add_list_command(CLI::App& app, CommandContext& context) {
  auto o = std::make_shared<ListOptions>();
  CLI::App* cmd = app.add_subcommand("list", "List every op and registered kernel (no GPU needed)");
  cmd->add_flag("--json", o->json, "Print as JSON");
  cmd->add_option("--plugin", o->plugins, "Load kernels from this plugin too (repeatable)")
      ->check(non_empty());
  cmd->callback([o, &context] { context.exit_code = list(*o); });
}

}  // namespace normbench
