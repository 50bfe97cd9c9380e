// Parsing untrusted JSON text (configs, reports) into a document, with errors that name the
// source and the JSON path where the text went wrong, and a bound on nesting: a file of
// 100,000 '[' must end in a message, not in a stack overflow of code that walks the document.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace normbench {

// Deeper documents are refused; normbench's own formats nest less than 10 levels.
inline constexpr int kMaxJsonDepth = 64;

// Throws ConfigError (exit 2):
//   "<source>: not valid JSON: <where and why>"
//   "<source>: /problems/0/eps: the number 1e400 is out of range; allowed: ..."
//   "<source>: /problems/0/eps: the number 1e-400 underflows to 0; allowed: ..."
//   "<source>: /problems/0: nested deeper than 64 levels; allowed: at most 64"
//   "<source>: /problems/0/op: duplicate field; allowed: each field once"
nlohmann::json parse_json_text(const std::string& text, const std::string& source);

}  // namespace normbench
