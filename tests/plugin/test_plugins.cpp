// Small plugins for the CPU tests of plugin loading (tests/cpu/cli/plugin_cli_test.cpp), one
// library per case, chosen with -DNB_CASE_<case>. None launches a real kernel: loading,
// listing and refusing need no GPU.
#include <normbench/plugin.h>

#include <cstdio>

namespace {
int refuse_launch(const nb_problem*, const nb_device*, const nb_args*) {
  return 801;  // cudaErrorNotSupported
}

int add(const nb_registrar* r, int op, const char* id) {
  const nb_kernel k = {op, id, "a test plugin's kernel", nullptr, nullptr, refuse_launch};
  return r->add_kernel(r->context, &k);
}

// layer_norm.many_0, layer_norm.many_1, ...
int add_many(const nb_registrar* r, int count) {
  char id[64];
  for (int i = 0; i < count; ++i) {
    std::snprintf(id, sizeof id, "layer_norm.many_%d", i);
    if (add(r, NB_OP_LAYER_NORM, id) != 0) return 1;
  }
  return 0;
}
}  // namespace

#if defined(NB_CASE_no_entry)
NORMBENCH_PLUGIN_EXPORT int not_a_normbench_entry_point(void) {
  return 0;
}
#elif defined(NB_CASE_data_entry_points)
// The entry points' names on data, not functions: calling them would jump into data.
extern "C" {
__attribute__((visibility("default"))) uint32_t normbench_plugin_abi_version =
    NORMBENCH_PLUGIN_ABI_VERSION;
__attribute__((visibility("default"))) int normbench_plugin_register = 0;
}
#else

#if defined(NB_CASE_wrong_abi)
NORMBENCH_PLUGIN_EXPORT uint32_t normbench_plugin_abi_version(void) {
  return 999;
}
#elif defined(NB_CASE_abi_1) || defined(NB_CASE_abi_1_backward)
// Built against the version-1 header, whose nb_args ends at `stream`.
NORMBENCH_PLUGIN_EXPORT uint32_t normbench_plugin_abi_version(void) {
  return 1;
}
#elif defined(NB_CASE_abi_2) || defined(NB_CASE_abi_2_add_rms_norm_backward)
// Built against the version-2 header, whose nb_args ends at `grad_bias` (no ds_out).
NORMBENCH_PLUGIN_EXPORT uint32_t normbench_plugin_abi_version(void) {
  return 2;
}
#else
NORMBENCH_PLUGIN_ABI_VERSION_FUNCTION
#endif

NORMBENCH_PLUGIN_EXPORT int normbench_plugin_register(const nb_registrar* r) {
#if defined(NB_CASE_good)
  return add(r, NB_OP_LAYER_NORM, "layer_norm.test_plugin") ||
         add(r, NB_OP_GROUP_NORM, "group_norm.test_plugin") ||
         add(r, NB_OP_GROUP_NORM_SILU, "group_norm_silu.test_plugin") ||
         add(r, NB_OP_GROUP_NORM_BACKWARD, "group_norm_backward.test_plugin") ||
         add(r, NB_OP_ADD_RMS_NORM_BACKWARD, "add_rms_norm_backward.test_plugin");
#elif defined(NB_CASE_unknown_op)
  return add(r, NB_OP_ADD_RMS_NORM_BACKWARD + 1, "add_rms_norm_backward.from_the_future");
#elif defined(NB_CASE_abi_1)
  return add(r, NB_OP_GROUP_NORM_SILU, "group_norm_silu.version_1");
#elif defined(NB_CASE_abi_1_backward)
  return add(r, NB_OP_LAYER_NORM_BACKWARD, "layer_norm_backward.version_1");
#elif defined(NB_CASE_abi_2)
  return add(r, NB_OP_RMS_NORM_BACKWARD, "rms_norm_backward.version_2");
#elif defined(NB_CASE_abi_2_add_rms_norm_backward)
  return add(r, NB_OP_ADD_RMS_NORM_BACKWARD, "add_rms_norm_backward.version_2");
#elif defined(NB_CASE_duplicate)
  return add(r, NB_OP_LAYER_NORM, "layer_norm.naive");
#elif defined(NB_CASE_outside_op)
  return add(r, NB_OP_LAYER_NORM, "group_norm.sneaky");
#elif defined(NB_CASE_path_in_id)
  return add(r, NB_OP_LAYER_NORM, "layer_norm.x/../../escaped");
#elif defined(NB_CASE_id_not_utf8)
  return add(r, NB_OP_LAYER_NORM, "layer_norm.\xff\xfe");
#elif defined(NB_CASE_odd_description)
  // Bytes that are not UTF-8 and an escape sequence: listed, but never raw on a terminal.
  const nb_kernel k = {NB_OP_LAYER_NORM,  "layer_norm.odd_description",
                       "\xff\x1b[31mred", nullptr,
                       nullptr,           refuse_launch};
  return r->add_kernel(r->context, &k);
#elif defined(NB_CASE_many_kernels)
  return add_many(r, 10000);  // as many as a plugin may register
#elif defined(NB_CASE_too_many_kernels)
  return add_many(r, 100000);
#elif defined(NB_CASE_register_fails)
  (void)r;
  return 3;
#else
  return add(r, NB_OP_LAYER_NORM, "layer_norm.test_plugin_abi");
#endif
}
#endif
