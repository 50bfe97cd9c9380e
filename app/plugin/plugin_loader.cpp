#include "app/plugin/plugin_loader.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include "app/util/errors.hpp"
#include "app/util/file_safe_name.hpp"
#include "app/util/shown_text.hpp"
#include "app/util/text_file.hpp"
#include "kernels/plugin_abi/normbench/plugin.h"
#include "kernels/registry.hpp"

namespace normbench {

namespace {

// The ABI's numbers are normbench's enums' values.
static_assert(NB_OP_ADD_RMS_NORM_BACKWARD == static_cast<int>(Op::add_rms_norm_backward) &&
              NB_OP_GROUP_NORM_BACKWARD == static_cast<int>(Op::group_norm_backward) &&
              NB_OP_RMS_NORM_BACKWARD == static_cast<int>(Op::rms_norm_backward) &&
              NB_OP_LAYER_NORM_BACKWARD == static_cast<int>(Op::layer_norm_backward) &&
              NB_OP_GROUP_NORM_SILU == static_cast<int>(Op::group_norm_silu) &&
              NB_OP_CHANNEL_RMS_NORM == static_cast<int>(Op::channel_rms_norm) &&
              NB_OP_ADD_RMS_NORM == static_cast<int>(Op::add_rms_norm) &&
              NB_OP_RMS_NORM == static_cast<int>(Op::rms_norm) &&
              NB_OP_LAYER_NORM_GELU_SCALE == static_cast<int>(Op::layer_norm_gelu_scale) &&
              NB_OP_GROUP_NORM == static_cast<int>(Op::group_norm));
static_assert(NB_DTYPE_BFLOAT16 == static_cast<int>(DType::bfloat16) &&
              NB_DTYPE_FLOAT16 == static_cast<int>(DType::float16));
static_assert(NB_LAYOUT_NHWC == static_cast<int>(Layout::nhwc));

// More than any real plugin needs; a bound, so that a runaway registration loop ends in a
// message and not in minutes of registering.
constexpr size_t kMaxKernelsPerPlugin = 10000;

// The oldest ABI this normbench loads, and the last op each version knew: a plugin built for
// version 1 does not know nb_args's backward fields, so it may not register the backward ops,
// nor one built for version 2 add_rms_norm_backward, whose ds_out came with version 3.
constexpr uint32_t kOldestPluginAbi = 1;
int last_op_of_abi(uint32_t abi) {
  if (abi == 1) return NB_OP_GROUP_NORM_SILU;
  if (abi == 2) return NB_OP_GROUP_NORM_BACKWARD;
  return NB_OP_ADD_RMS_NORM_BACKWARD;
}
// The first ABI version that knew `op` (one of the ops some version knows).
uint32_t first_abi_of_op(int op) {
  uint32_t abi = kOldestPluginAbi;
  while (op > last_op_of_abi(abi)) ++abi;
  return abi;
}

// A plugin's kernel as normbench keeps it: the strings copied, the callbacks as given.
struct PluginKernel {
  Op op = Op::layer_norm;
  std::string id;
  std::string description;
  decltype(nb_kernel::unsupported) unsupported = nullptr;
  decltype(nb_kernel::workspace_bytes) workspace_bytes = nullptr;
  decltype(nb_kernel::launch) launch = nullptr;
};

struct Collected {
  uint32_t abi = NORMBENCH_PLUGIN_ABI_VERSION;  // the version the plugin was built for
  std::vector<PluginKernel> kernels;
  std::string error;  // the first kernel the registrar refused, and why
};

int add_kernel(void* context, const nb_kernel* k) {
  auto& collected = *static_cast<Collected*>(context);
  auto refuse = [&](const std::string& why) {
    if (collected.error.empty()) collected.error = why;
    return 1;
  };
  if (!k) return refuse("add_kernel was given no kernel");
  if (collected.kernels.size() >= kMaxKernelsPerPlugin)
    return refuse("it registers more than " + std::to_string(kMaxKernelsPerPlugin) +
                  " kernels; allowed: at most " + std::to_string(kMaxKernelsPerPlugin));
  const int last = last_op_of_abi(collected.abi);
  if (k->op < NB_OP_LAYER_NORM || k->op > last) {
    std::string allowed;
    for (Op op : kAllOps)
      if (static_cast<int>(op) <= last)
        allowed += (allowed.empty() ? "" : ", ") + std::to_string(static_cast<int>(op)) + " (" +
                   std::string(op_name(op)) + ")";
    if (k->op > last && k->op <= last_op_of_abi(NORMBENCH_PLUGIN_ABI_VERSION))
      return refuse(
          "kernel op " + std::to_string(k->op) + " (" +
          std::string(op_name(static_cast<Op>(k->op))) + ") needs plugin ABI version " +
          std::to_string(first_abi_of_op(k->op)) + ", and the plugin was built for version " +
          std::to_string(collected.abi) +
          " (rebuild it against this normbench's normbench/plugin.h); allowed: " + allowed);
    return refuse("kernel op " + std::to_string(k->op) + " is unknown; allowed: " + allowed);
  }
  if (!k->id || !*k->id) return refuse("a kernel has no id");
  if (!k->launch) return refuse("kernel " + shown(k->id) + " has no launch function");
  PluginKernel copy;
  copy.op = static_cast<Op>(k->op);
  copy.id = k->id;
  copy.description = k->description ? k->description : "";
  copy.unsupported = k->unsupported;
  copy.workspace_bytes = k->workspace_bytes;
  copy.launch = k->launch;
  collected.kernels.push_back(std::move(copy));
  return 0;
}

nb_device to_plugin(const DeviceCaps& d) {
  nb_device n{};
  n.sm_count = d.sm_count;
  n.cc_major = d.compute_capability_major;
  n.cc_minor = d.compute_capability_minor;
  n.max_threads_per_sm = d.max_threads_per_sm;
  n.shared_memory_per_block_optin = d.shared_memory_per_block_optin;
  n.shared_memory_per_sm = d.shared_memory_per_sm;
  n.cooperative_launch = d.cooperative_launch ? 1 : 0;
  return n;
}

// The problem as the ABI sees it; `shape` must outlive the result.
nb_problem to_plugin(const ProblemShape& p, const std::vector<int64_t>& shape) {
  nb_problem n{};
  n.op = static_cast<int32_t>(p.op);
  n.ndim = static_cast<int32_t>(shape.size());
  n.shape = shape.data();
  n.num_elements = p.num_elements;
  n.num_segments = p.num_segments;
  n.segment_size = p.segment_size;
  n.groups = p.groups;
  n.channels = p.channels;
  n.spatial = p.spatial;
  n.param_size = p.param_size;
  n.eps = p.eps;
  n.scale = p.scale;
  n.affine = p.affine ? 1 : 0;
  n.dtype = static_cast<int32_t>(p.dtype);
  n.param_dtype = static_cast<int32_t>(p.param_dtype);
  n.layout = static_cast<int32_t>(p.layout);
  n.has_bias = p.has_bias ? 1 : 0;
  return n;
}

KernelVariant variant_of(const PluginKernel& k, const std::string& origin) {
  KernelVariant v;
  v.op = k.op;
  v.id = k.id;
  v.description = k.description;
  v.origin = origin;
  v.accepts = Accepts::everything();  // a plugin sees every format and declines for itself
  v.plan = [k](const ProblemShape& p, const DeviceCaps& d) {
    const auto shape = std::make_shared<const std::vector<int64_t>>(p.shape);
    const nb_problem problem = to_plugin(p, *shape);
    const nb_device device = to_plugin(d);
    if (k.unsupported) {
      char reason[512] = {0};
      if (k.unsupported(&problem, &device, reason, sizeof reason) != 0) {
        reason[sizeof reason - 1] = '\0';
        return KernelPlan::declined(reason[0] ? reason : "declined (the plugin gave no reason)");
      }
    }
    KernelPlan plan;
    plan.workspace_bytes = k.workspace_bytes ? k.workspace_bytes(&problem, &device) : 0;
    plan.launch = [k, shape, problem, device](const KernelArgs& a) {
      const nb_args args{a.x,    a.residual,    a.weight,    a.bias,  a.y,
                         a.sum,  a.workspace,   a.stream,    a.dy,    a.mean,
                         a.rstd, a.grad_weight, a.grad_bias, a.ds_out};
      return static_cast<cudaError_t>(k.launch(&problem, &device, &args));
    };
    return plan;
  };
  return v;
}

// The address of the function `symbol` of `library`; nullptr if there is no such symbol. A
// symbol of that name on data (`int normbench_plugin_register = 0;`) is refused: calling it
// would jump into data.
void* function_symbol(void* library, const char* symbol, const std::string& name) {
  void* address = ::dlsym(library, symbol);
  if (!address) return nullptr;
  Dl_info info{};
  void* found = nullptr;
  if (::dladdr1(address, &info, &found, RTLD_DL_SYMENT) == 0 || !found)
    throw UsageError(name + ": cannot tell what " + symbol + " is (dladdr1 found no symbol)");
  const auto* entry = static_cast<const ElfW(Sym)*>(found);
  const int type = ELF64_ST_TYPE(entry->st_info);
  if (type != STT_FUNC && type != STT_GNU_IFUNC)
    throw UsageError(name + ": " + symbol + " is not a function (ELF symbol type " +
                     std::to_string(type) + "); allowed: the functions of normbench/plugin.h");
  return address;
}

LoadedPlugin load_plugin(const std::string& path, std::unordered_set<std::string>& ids_so_far) {
  const std::string name = "plugin " + shown(path);
  std::error_code ec;
  const std::string allowed = "; allowed: a plugin's shared library (.so) file";
  if (!std::filesystem::exists(path, ec)) throw UsageError(name + ": no such file" + allowed);
  // dlopen would wait on a FIFO for ever.
  if (const std::string why = why_not_a_regular_file(path); !why.empty())
    throw UsageError(name + ": " + why + allowed);
  // RTLD_LOCAL: plugins do not see each other's symbols. The library stays loaded for the
  // whole process (its kernels are registered).
  void* library = ::dlopen(std::filesystem::absolute(path).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) throw UsageError(name + ": cannot be loaded: " + shown(::dlerror(), 500));
  const auto version = reinterpret_cast<nb_abi_version_function>(
      function_symbol(library, "normbench_plugin_abi_version", name));
  const auto register_function = reinterpret_cast<nb_register_function>(
      function_symbol(library, "normbench_plugin_register", name));
  if (!version || !register_function)
    throw UsageError(name +
                     ": not a normbench plugin: it does not export normbench_plugin_abi_version "
                     "and normbench_plugin_register (see normbench/plugin.h)");
  const uint32_t abi = version();
  if (abi < kOldestPluginAbi || abi > NORMBENCH_PLUGIN_ABI_VERSION)
    throw UsageError(name + ": built for plugin ABI version " + std::to_string(abi) +
                     "; this normbench loads versions " + std::to_string(kOldestPluginAbi) +
                     " to " + std::to_string(NORMBENCH_PLUGIN_ABI_VERSION) +
                     " (rebuild it against this normbench's normbench/plugin.h)");
  Collected collected;
  collected.abi = abi;
  const nb_registrar registrar{NORMBENCH_PLUGIN_ABI_VERSION, &collected, add_kernel};
  const int status = register_function(&registrar);
  if (!collected.error.empty()) throw UsageError(name + ": " + collected.error);
  if (status != 0)
    throw UsageError(name + ": normbench_plugin_register failed (returned " +
                     std::to_string(status) + ")");
  if (collected.kernels.empty()) throw UsageError(name + ": registered no kernel");

  // Ids by hash, not by a search of the registry per kernel: ten thousand kernels load in moments.
  std::unordered_map<std::string, const KernelVariant*> registered;
  for (const KernelVariant& v : registered_kernels()) registered.emplace(v.id, &v);
  LoadedPlugin loaded{path, {}};
  std::vector<KernelVariant> variants;
  for (const PluginKernel& k : collected.kernels) {
    const std::string id = "kernel id \"" + shown(k.id) + "\"";
    const std::string prefix = std::string(op_name(k.op)) + ".";
    if (k.id.rfind(prefix, 0) != 0 || k.id.size() == prefix.size())
      throw UsageError(name + ": " + id + " is outside its op; allowed: \"" + prefix + "<name>\"");
    // Kernel ids name files under --save-tensors.
    if (!is_file_safe_name(k.id))
      throw UsageError(name + ": " + id + " is not a valid id; allowed: \"" + prefix +
                       "<name>\", " + kFileSafeNameRule);
    if (const auto existing = registered.find(k.id); existing != registered.end())
      throw UsageError(name + ": " + id + " is registered already (by " +
                       (existing->second->origin.empty() ? std::string("normbench")
                                                         : shown(existing->second->origin)) +
                       ")");
    if (!ids_so_far.insert(k.id).second)
      throw UsageError(name + ": " + id + " is registered twice");
    loaded.kernel_ids.push_back(k.id);
    variants.push_back(variant_of(k, path));
  }
  register_kernels(std::move(variants));
  return loaded;
}

}  // namespace

std::vector<LoadedPlugin> load_plugins(const std::vector<std::string>& paths,
                                       const std::vector<std::string>& named_by) {
  std::vector<LoadedPlugin> loaded;
  std::unordered_set<std::string> ids;
  for (size_t i = 0; i < paths.size(); ++i) {
    try {
      loaded.push_back(load_plugin(paths[i], ids));
    } catch (const UsageError& e) {
      if (i >= named_by.size() || named_by[i].empty()) throw;
      throw UsageError(named_by[i] + ": " + e.what());
    }
  }
  return loaded;
}

}  // namespace normbench
