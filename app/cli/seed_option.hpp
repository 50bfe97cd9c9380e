// --seed, shared by run and plan: an unsigned 64-bit integer, with a message that says so
// (CLI11's own range check prints a 300-digit double).
#pragma once

#include <cstdint>
#include <string>

namespace normbench {

// Throws UsageError "--seed abc: not an integer; allowed: an unsigned 64-bit integer, ...".
uint64_t parse_seed_option(const std::string& text);

}  // namespace normbench
