// An option given an empty value ("--config ''", "--seed ''") is a mistake, not "not given":
// CLI11 would store the empty string, and the command would quietly take its default.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace normbench {

inline CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& value) {
        return value.empty() ? std::string("an empty value; allowed: a non-empty one")
                             : std::string();
      },
      "NONEMPTY");
}

}  // namespace normbench
