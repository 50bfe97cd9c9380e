// Small plugins for the CPU tests of plugin loading (tests/cpu/cli/plugin_cli_test.cpp), one
// library per case, chosen with -DNB_CASE_<case>. None launches a real kernel: loading,
// listing and refusing need no GPU.
#include <normbench/plugin.h>

namespace {
int refuse_launch(const nb_problem*, const nb_device*, const nb_args*) {
  return 801;  // cudaErrorNotSupported
}

int add(const nb_registrar* r, int op, const char* id) {
  const nb_kernel k = {op, id, "a test plugin's kernel", nullptr, nullptr, refuse_launch};
  return r->add_kernel(r->context, &k);
}
}  // namespace

#if defined(NB_CASE_no_entry)
NORMBENCH_PLUGIN_EXPORT int not_a_normbench_entry_point(void) {
  return 0;
}
#else

#if defined(NB_CASE_wrong_abi)
NORMBENCH_PLUGIN_EXPORT uint32_t normbench_plugin_abi_version(void) {
  return 999;
}
#else
NORMBENCH_PLUGIN_ABI_VERSION_FUNCTION
#endif

NORMBENCH_PLUGIN_EXPORT int normbench_plugin_register(const nb_registrar* r) {
#if defined(NB_CASE_good)
  return add(r, NB_OP_LAYER_NORM, "layer_norm.test_plugin") ||
         add(r, NB_OP_GROUP_NORM, "group_norm.test_plugin");
#elif defined(NB_CASE_duplicate)
  return add(r, NB_OP_LAYER_NORM, "layer_norm.naive");
#elif defined(NB_CASE_outside_op)
  return add(r, NB_OP_LAYER_NORM, "group_norm.sneaky");
#elif defined(NB_CASE_register_fails)
  (void)r;
  return 3;
#else
  return add(r, NB_OP_LAYER_NORM, "layer_norm.test_plugin_abi");
#endif
}
#endif
