// The plugins that run and plan load: the config's ("plugins"), named in load_plugins' messages
// by the config file and JSON path as every config error is, then the --plugin options'.
#pragma once

#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/plugin/plugin_loader.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

inline std::vector<LoadedPlugin> load_command_plugins(const RunConfig& config,
                                                      const std::vector<std::string>& options) {
  std::vector<std::string> paths, named_by;
  for (size_t i = 0; i < config.plugins.size(); ++i) {
    paths.push_back(config.plugins[i]);
    named_by.push_back(shown(config.source) + ": /plugins/" + std::to_string(i));
  }
  for (const std::string& path : options) {
    paths.push_back(path);
    named_by.push_back("");
  }
  return load_plugins(paths, named_by);
}

}  // namespace normbench
