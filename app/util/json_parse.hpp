// Parsing untrusted JSON text (configs, reports) into a document, with errors that name the
// source and the JSON path where the text went wrong, and a bound on nesting: a file of
// 100,000 '[' must end in a message, not in a stack overflow of code that walks the document.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace normbench {

// Deeper documents are refused; normbench's own formats nest less than 10 levels.
inline constexpr int kMaxJsonDepth = 64;

// Documents with more objects and arrays, or more object fields, are refused: a file of "{}"s
// within the 256 MiB report limit took 8 GB of memory to parse into objects. normbench's reports
// hold some 2,500 containers and 10,000 fields a MB, so a report at that limit has about 0.7 M
// and 2.5 M; these bounds keep a document's memory under about 1 GB.
inline constexpr size_t kMaxJsonContainers = size_t{2} << 20;
inline constexpr size_t kMaxJsonFields = size_t{8} << 20;

// Throws ConfigError (exit 2):
//   "<source>: not valid JSON: <where and why>"
//   "<source>: /problems/0/eps: the number 1e400 is out of range; allowed: ..."
//   "<source>: /problems/0/eps: the number 1e-400 underflows to 0; allowed: ..."
//   "<source>: /problems/0: nested deeper than 64 levels; allowed: at most 64"
//   "<source>: /problems/9: more than 2097152 objects and arrays; allowed: at most 2097152"
//   "<source>: /problems/0/op: duplicate field; allowed: each field once"
nlohmann::json parse_json_text(const std::string& text, const std::string& source);

// Empties `document` without allocating, innermost containers first. nlohmann's destructor
// moves a container's children onto a heap stack before freeing them, so destroying a large
// document while unwinding from std::bad_alloc allocates again and ends in std::terminate
// instead of normbench's "out of host memory" exit; a document released first destroys as
// an empty value. Depth is bounded by kMaxJsonDepth, so the recursion is too.
void release_json(nlohmann::json& document) noexcept;

}  // namespace normbench
