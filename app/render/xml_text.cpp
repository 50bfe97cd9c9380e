#include "app/render/xml_text.hpp"

namespace normbench {

namespace {
// Appends UTF-8 code point `c` (below 0x110000) to `out`.
void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// U+FFFE and U+FFFF (EF BF BE, EF BF BF in UTF-8) at text[i]: valid UTF-8, not XML 1.0 characters.
bool is_xml_noncharacter(std::string_view text, size_t i) {
  return i + 2 < text.size() && static_cast<unsigned char>(text[i]) == 0xEF &&
         static_cast<unsigned char>(text[i + 1]) == 0xBF &&
         (static_cast<unsigned char>(text[i + 2]) & 0xFE) == 0xBE;
}
}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    const auto c = static_cast<unsigned char>(ch);
    if (is_xml_noncharacter(text, i)) {
      append_utf8(out, 0xFFFD);  // not allowed in XML 1.0, even as a reference
      i += 2;
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        if (c < 0x20 || c == 0x7F)
          append_utf8(out, 0xFFFD);  // not allowed in XML 1.0, even as a reference
        else
          out += ch;  // UTF-8 bytes pass through: the reader only hands out valid UTF-8
    }
  }
  return out;
}

}  // namespace normbench
