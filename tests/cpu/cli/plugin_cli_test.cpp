// Plugins through the command line, without a GPU: a good plugin's kernels are listed with
// where they came from; every kind of bad plugin is refused with exit 2, a message naming the
// plugin and what is wrong, and nothing written.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string output;
};

std::string plugin(const std::string& name) {
  return std::string(NORMBENCH_TEST_PLUGIN_DIR) + "/test_plugin_" + name + ".so";
}

// `before` goes in front of the binary (say "timeout 20 ").
Outcome normbench(const std::string& args, const std::string& cwd, const std::string& before = "") {
  const std::string command =
      "cd '" + cwd + "' && " + before + "'" + std::string(NORMBENCH_BINARY) + "' " + args + " 2>&1";
  Outcome o;
  FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[4096];
  for (size_t n; pipe && (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    o.output.append(buffer, n);
  const int status = pipe ? ::pclose(pipe) : -1;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

using testing::contains;

TEST(PluginCli, ListShowsAPluginsKernelsAndWhereTheyCameFrom) {
  testing::TempDir dir;
  const Outcome o = normbench("list --plugin '" + plugin("good") + "'", dir.path());
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "layer_norm.test_plugin ")) << o.output;
  EXPECT_TRUE(contains(o.output, "group_norm.test_plugin ")) << o.output;
  EXPECT_TRUE(contains(o.output, "group_norm_silu.test_plugin ")) << o.output;
  EXPECT_TRUE(contains(o.output, "group_norm_backward.test_plugin ")) << o.output;
  EXPECT_TRUE(contains(o.output, "add_rms_norm_backward.test_plugin ")) << o.output;  // the newest
  EXPECT_TRUE(contains(o.output, "[plugin " + plugin("good") + "]")) << o.output;
  const Outcome j = normbench("list --json --plugin '" + plugin("good") + "'", dir.path());
  EXPECT_TRUE(contains(j.output, "\"origin\": \"" + plugin("good") + "\"")) << j.output;
}

TEST(PluginCli, PluginsOfTheFirstAbiVersionStillLoad) {
  testing::TempDir dir;
  const Outcome o = normbench("list --plugin '" + plugin("abi_1") + "'", dir.path());
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "group_norm_silu.version_1 ")) << o.output;
}

TEST(PluginCli, PluginsOfTheSecondAbiVersionStillLoad) {
  testing::TempDir dir;
  const Outcome o = normbench("list --plugin '" + plugin("abi_2") + "'", dir.path());
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "rms_norm_backward.version_2 ")) << o.output;
}

TEST(PluginCli, BadPluginsAreRefusedNamingThePluginAndTheFault) {
  testing::TempDir dir;
  testing::write_text(dir.file("text.so"), "not a library");
  const struct {
    std::string path;
    std::string message;
  } cases[] = {
      {dir.file("missing.so"), ": no such file"},
      {dir.file("text.so"), ": cannot be loaded: "},
      {plugin("no_entry"), ": not a normbench plugin: it does not export"},
      {plugin("wrong_abi"),
       ": built for plugin ABI version 999; this normbench loads versions 1 to 3"},
      {plugin("duplicate"),
       ": kernel id \"layer_norm.naive\" is registered already (by normbench)"},
      {plugin("outside_op"),
       ": kernel id \"group_norm.sneaky\" is outside its op; allowed: \"layer_norm.<name>\""},
      {plugin("register_fails"), ": normbench_plugin_register failed (returned 3)"},
      // An op of a later header than this normbench's.
      {plugin("unknown_op"),
       ": kernel op 11 is unknown; allowed: 0 (layer_norm), 1 (group_norm), 2 "
       "(layer_norm_gelu_scale), 3 (rms_norm), 4 (add_rms_norm), 5 (channel_rms_norm), 6 "
       "(group_norm_silu), 7 (layer_norm_backward), 8 (rms_norm_backward), 9 "
       "(group_norm_backward), 10 (add_rms_norm_backward)"},
      // A plugin of the version-1 header knows nb_args without the backward ops' fields.
      {plugin("abi_1_backward"),
       ": kernel op 7 (layer_norm_backward) needs plugin ABI version 2, and the plugin was "
       "built for version 1 (rebuild it against this normbench's normbench/plugin.h); allowed: "
       "0 (layer_norm), 1 (group_norm), 2 (layer_norm_gelu_scale), 3 (rms_norm), 4 "
       "(add_rms_norm), 5 (channel_rms_norm), 6 (group_norm_silu)"},
      // A plugin of the version-2 header knows nb_args without ds_out.
      {plugin("abi_2_add_rms_norm_backward"),
       ": kernel op 10 (add_rms_norm_backward) needs plugin ABI version 3, and the plugin was "
       "built for version 2 (rebuild it against this normbench's normbench/plugin.h); allowed: "
       "0 (layer_norm), 1 (group_norm), 2 (layer_norm_gelu_scale), 3 (rms_norm), 4 "
       "(add_rms_norm), 5 (channel_rms_norm), 6 (group_norm_silu), 7 (layer_norm_backward), 8 "
       "(rms_norm_backward), 9 (group_norm_backward)"},
      // Calling an entry point that is data would jump into data: SIGSEGV.
      {plugin("data_entry_points"),
       ": normbench_plugin_abi_version is not a function (ELF symbol type 1); allowed: the "
       "functions of normbench/plugin.h"},
      // Kernel ids name files under --save-tensors.
      {plugin("path_in_id"),
       ": kernel id \"layer_norm.x/../../escaped\" is not a valid id; allowed: "
       "\"layer_norm.<name>\", 1 to 128 letters, digits"},
      {plugin("id_not_utf8"), ": kernel id \"layer_norm.\\xff\\xfe\" is not a valid id"},
      {plugin("too_many_kernels"),
       ": it registers more than 10000 kernels; allowed: at most 10000"},
  };
  for (const auto& c : cases) {
    for (const std::string command : {"list", "run --out r.json"}) {
      const Outcome o = normbench(command + " --plugin '" + c.path + "'", dir.path());
      EXPECT_EQ(o.exit_code, 2) << command << " " << c.path << ": " << o.output;
      EXPECT_TRUE(contains(o.output, "normbench: plugin " + c.path + c.message))
          << command << ": " << o.output;
      EXPECT_FALSE(std::filesystem::exists(dir.file("r.json")));
    }
  }
  // The same plugin twice: its ids are then registered already.
  const Outcome twice = normbench(
      "list --plugin '" + plugin("good") + "' --plugin '" + plugin("good") + "'", dir.path());
  EXPECT_EQ(twice.exit_code, 2) << twice.output;
  EXPECT_TRUE(contains(twice.output, "is registered already (by " + plugin("good") + ")"))
      << twice.output;
}

TEST(PluginCli, AFifoOrALongPathIsRefusedWithoutWaiting) {
  testing::TempDir dir;
  ASSERT_EQ(::mkfifo(dir.file("fifo.so").c_str(), 0600), 0);
  // Under timeout: dlopen on a FIFO waited for a writer for ever.
  const Outcome fifo = normbench("list --plugin fifo.so", dir.path(), "timeout 20 ");
  EXPECT_EQ(fifo.exit_code, 2) << fifo.output;
  EXPECT_TRUE(contains(fifo.output,
                       "normbench: plugin fifo.so: it is a FIFO; allowed: a regular "
                       "file"))
      << fifo.output;
  const Outcome long_path = normbench("list --plugin " + std::string(100000, 'p'), dir.path());
  EXPECT_EQ(long_path.exit_code, 2) << long_path.output.substr(0, 500);
  EXPECT_TRUE(contains(long_path.output, "... (100000 bytes in all): no such file"))
      << long_path.output.substr(0, 500);
  EXPECT_LT(long_path.output.size(), 500u);
}

TEST(PluginCli, TenThousandKernelsRegisterInMoments) {
  testing::TempDir dir;
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = normbench("list --json --plugin '" + plugin("many_kernels") + "'", dir.path());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(o.exit_code, 0) << o.output.substr(0, 500);
  EXPECT_TRUE(contains(o.output, "\"layer_norm.many_9999\"")) << o.output.substr(0, 500);
  EXPECT_LT(seconds, 2.0);  // about 0.05 s; registered one at a time they took 6-10 s
}

TEST(PluginCli, DescriptionsThatAreNotUtf8OrHoldEscapesAreListedSafely) {
  testing::TempDir dir;
  const std::string path = plugin("odd_description");
  const Outcome text = normbench("list --plugin '" + path + "'", dir.path());
  EXPECT_EQ(text.exit_code, 0) << text.output;
  EXPECT_TRUE(contains(text.output, "layer_norm.odd_description")) << text.output;
  EXPECT_TRUE(contains(text.output, "\\xff\\u001b[31mred")) << text.output;
  EXPECT_FALSE(contains(text.output, "\x1b")) << text.output;
  const Outcome json = normbench("list --json --plugin '" + path + "'", dir.path());
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_TRUE(contains(json.output, "\"\xef\xbf\xbd\\u001b[31mred\"")) << json.output;
}

TEST(PluginCli, AConfigsPluginsAreFoundNextToTheConfigAndNamedByItWhenBad) {
  testing::TempDir dir;
  std::filesystem::create_directory(dir.file("configs"));
  std::filesystem::copy_file(plugin("good"), dir.file("configs/mine.so"));
  testing::write_text(dir.file("configs/c.json"), R"({"name": "c", "plugins": ["mine.so"],
      "problems": [{"id": "a", "op": "layer_norm", "shape": [4], "normalized_shape": [4]}]})");
  // The plugin's kernel is known to --kernel only because the config's plugin was loaded; the
  // run then stops at the missing GPU (3) or runs (a GPU machine) but never refuses it (2).
  const Outcome o = normbench(
      "run --config configs/c.json --kernel layer_norm.test_plugin --out r.json", dir.path());
  EXPECT_NE(o.exit_code, 2) << o.output;
  testing::write_text(dir.file("configs/bad.json"), R"({"name": "b", "plugins": ["nope.so"],
      "problems": [{"id": "a", "op": "layer_norm", "shape": [4], "normalized_shape": [4]}]})");
  const Outcome bad = normbench("run --config configs/bad.json --out r2.json", dir.path());
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  // Named by the config file and the JSON path that gave it, as any config error is.
  EXPECT_TRUE(
      contains(bad.output, "configs/bad.json: /plugins/0: plugin configs/nope.so: no such file"))
      << bad.output;
  testing::write_text(dir.file("configs/typed.json"), R"({"name": "t", "plugins": [7],
      "problems": [{"id": "a", "op": "layer_norm", "shape": [4], "normalized_shape": [4]}]})");
  const Outcome typed = normbench("run --config configs/typed.json --out r3.json", dir.path());
  EXPECT_EQ(typed.exit_code, 2) << typed.output;
  EXPECT_TRUE(contains(typed.output, "typed.json: /plugins/0: expected a string")) << typed.output;
}

}  // namespace
}  // namespace normbench
