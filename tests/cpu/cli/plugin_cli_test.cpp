// Plugins through the command line, without a GPU: a good plugin's kernels are listed with
// where they came from; every kind of bad plugin is refused with exit 2, a message naming the
// plugin and what is wrong, and nothing written.
#include <gtest/gtest.h>
#include <sys/wait.h>

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

Outcome normbench(const std::string& args, const std::string& cwd) {
  const std::string command =
      "cd '" + cwd + "' && '" + std::string(NORMBENCH_BINARY) + "' " + args + " 2>&1";
  Outcome o;
  FILE* pipe = ::popen(command.c_str(), "r");
  char buffer[4096];
  for (size_t n; pipe && (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    o.output.append(buffer, n);
  const int status = pipe ? ::pclose(pipe) : -1;
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PluginCli, ListShowsAPluginsKernelsAndWhereTheyCameFrom) {
  testing::TempDir dir;
  const Outcome o = normbench("list --plugin '" + plugin("good") + "'", dir.path());
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "layer_norm.test_plugin ")) << o.output;
  EXPECT_TRUE(contains(o.output, "group_norm.test_plugin ")) << o.output;
  EXPECT_TRUE(contains(o.output, "[plugin " + plugin("good") + "]")) << o.output;
  const Outcome j = normbench("list --json --plugin '" + plugin("good") + "'", dir.path());
  EXPECT_TRUE(contains(j.output, "\"origin\": \"" + plugin("good") + "\"")) << j.output;
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
      {plugin("wrong_abi"), ": built for plugin ABI version 999; this normbench loads version 1"},
      {plugin("duplicate"),
       ": kernel id \"layer_norm.naive\" is registered already (by normbench)"},
      {plugin("outside_op"),
       ": kernel id \"group_norm.sneaky\" is outside its op; allowed: \"layer_norm.<name>\""},
      {plugin("register_fails"), ": normbench_plugin_register failed (returned 3)"},
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

TEST(PluginCli, AConfigsPluginsAreFoundNextToTheConfig) {
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
  EXPECT_TRUE(contains(bad.output, "plugin configs/nope.so: no such file")) << bad.output;
  testing::write_text(dir.file("configs/typed.json"), R"({"name": "t", "plugins": [7],
      "problems": [{"id": "a", "op": "layer_norm", "shape": [4], "normalized_shape": [4]}]})");
  const Outcome typed = normbench("run --config configs/typed.json --out r3.json", dir.path());
  EXPECT_EQ(typed.exit_code, 2) << typed.output;
  EXPECT_TRUE(contains(typed.output, "typed.json: /plugins/0: expected a string")) << typed.output;
}

}  // namespace
}  // namespace normbench
