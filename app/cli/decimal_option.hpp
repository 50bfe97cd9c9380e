// Integer options read in decimal only. CLI11 converts with base 0, so "010" meant 8 and "0x10"
// 16: `--trials 010` ran eight trials and `--device 010` would pick GPU 8. This transform,
// given before the option's range check, keeps digits only and drops leading zeros.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <string>

#include "app/util/shown_text.hpp"

namespace normbench {

inline CLI::Validator decimal_integer() {
  return CLI::Validator(
      [](std::string& value) {
        if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
          return "\"" + shown(value) + "\" is not a decimal integer; allowed: the digits 0-9";
        value.erase(0, std::min(value.find_first_not_of('0'), value.size() - 1));
        return std::string();
      },
      "DECIMAL");
}

}  // namespace normbench
