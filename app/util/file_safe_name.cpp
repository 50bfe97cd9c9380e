#include "app/util/file_safe_name.hpp"

namespace normbench {

namespace {
bool is_alnum_or_underscore(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
}  // namespace

bool is_file_safe_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxFileSafeNameLength) return false;
  if (!is_alnum_or_underscore(name.front())) return false;
  for (char c : name)
    if (!is_alnum_or_underscore(c) && c != '.' && c != '-') return false;
  return true;
}

}  // namespace normbench
