#include "app/util/markdown_text.hpp"

namespace normbench {

std::string markdown_text(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool link = c == ']' && i + 1 < text.size() && text[i + 1] == '(';
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (c == '\\' || c == '`' || c == '*' || c == '<' || c == '>' || c == '|' || c == '&' ||
               link) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace normbench
