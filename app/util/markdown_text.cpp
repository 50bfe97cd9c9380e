#include "app/util/markdown_text.hpp"

#include "app/util/shown_text.hpp"

namespace normbench {

std::string markdown_text(const std::string& raw) {
  // Line breaks and tabs as spaces (a table cell is one line), then every other control
  // character and invalid UTF-8 escaped as `shown` does (\u001b, \xff): Markdown goes to
  // terminals too (`report --out -`), where an escape sequence would act.
  std::string flat = raw;
  for (char& c : flat)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  const std::string text = terminal_safe(flat);
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool link = c == ']' && i + 1 < text.size() && text[i + 1] == '(';
    if (c == '\\' || c == '`' || c == '*' || c == '<' || c == '>' || c == '|' || c == '&' || link) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace normbench
