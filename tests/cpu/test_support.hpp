// Small helpers shared by the CPU tests: repository paths, temporary folders, file reading,
// what a refusal says, a config's first problem.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/util/errors.hpp"

namespace normbench::testing {

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// What a UsageError thrown by `f` says, or "" if none was thrown.
template <typename F>
std::string usage_error(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// The first problem of a config given as JSON text. Its RunConfig is kept for the whole test
// binary: a ProblemConfig refers into it.
inline ProblemConfig first_problem(const std::string& config_json,
                                   const std::string& file = "test.json") {
  static std::deque<RunConfig> keep;
  keep.push_back(parse_config(config_json, file));
  return keep.back().problems.at(0);
}

// A path inside the source tree (configs/, tests/fixtures/).
inline std::string source_path(const std::string& relative) {
  return std::string(NORMBENCH_SOURCE_DIR) + "/" + relative;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fresh folder under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "normbench_test_XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (::mkdtemp(buffer.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = buffer.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Names of every entry below the folder, recursively, relative to it.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::recursive_directory_iterator(path_))
      names.push_back(std::filesystem::relative(e.path(), path_).string());
    return names;
  }

 private:
  std::string path_;
};

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// A path or argument as one shell word.
inline std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `BINARY ARGS` (ARGS already shell-quoted) in `dir`, stdout and stderr captured there.
inline CliRun run_binary(const std::string& binary, const TempDir& dir, const std::string& args) {
  const std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  const std::string command = "cd " + quoted(dir.path()) + " && " + quoted(binary) + " " + args +
                              " >" + quoted(out) + " 2>" + quoted(err);
  const int status = std::system(command.c_str());
  CliRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

}  // namespace normbench::testing
