// Loading kernels from plugins (kernels/plugin_abi/normbench/plugin.h): shared libraries built
// outside normbench, registered next to its own kernels and run through the same verification,
// isolation and timing. Nothing of a plugin is trusted but its registration, which runs here.
#pragma once

#include <string>
#include <vector>

namespace normbench {

struct LoadedPlugin {
  std::string path;
  std::vector<std::string> kernel_ids;
};

// Loads each plugin and registers its kernels. Throws UsageError (exit 2) naming the plugin and
// what is wrong: a missing file, a library that does not load, no entry point, another ABI
// version, a failed registration, an id registered already or outside its op. A plugin is
// checked whole before any of its kernels is registered. `named_by[i]`, where given and not
// empty, says where paths[i] came from ("configs/x.json: /plugins/0") and opens its messages.
std::vector<LoadedPlugin> load_plugins(const std::vector<std::string>& paths,
                                       const std::vector<std::string>& named_by = {});

}  // namespace normbench
