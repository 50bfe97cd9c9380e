#include "app/cli/seed_option.hpp"

#include "app/util/errors.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

uint64_t parse_seed_option(const std::string& text) {
  const std::string allowed = "allowed: an unsigned 64-bit integer, 0 to 18446744073709551615";
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError("--seed " + shown(text) + ": not an integer; " + allowed);
  if (text.size() == 20 && text > "18446744073709551615")
    throw UsageError("--seed " + shown(text) + ": too large; " + allowed);
  return std::stoull(text);
}

}  // namespace normbench
