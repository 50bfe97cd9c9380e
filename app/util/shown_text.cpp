#include "app/util/shown_text.hpp"

#include <fmt/format.h>

namespace normbench {

namespace {

bool is_continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// The length of the well-formed UTF-8 character at text[i] (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0 if the byte there does not start one.
size_t utf8_length(std::string_view text, size_t i) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = at(0);
  size_t n = 0;
  unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) n = 2;
  if (lead >= 0xE0 && lead <= 0xEF) n = 3;
  if (lead >= 0xF0 && lead <= 0xF4) n = 4;
  if (lead == 0xE0) low = 0xA0;
  if (lead == 0xED) high = 0x9F;
  if (lead == 0xF0) low = 0x90;
  if (lead == 0xF4) high = 0x8F;
  if (n == 0 || i + n > text.size() || at(1) < low || at(1) > high) return 0;
  for (size_t k = 2; k < n; ++k)
    if (!is_continuation(at(k))) return 0;
  return n;
}

// The code point of the well-formed three-byte character at text[i].
unsigned code_point3(std::string_view text, size_t i) {
  const auto at = [&](size_t k) {
    return static_cast<unsigned>(static_cast<unsigned char>(text[i + k]));
  };
  return (at(0) & 0x0F) << 12 | (at(1) & 0x3F) << 6 | (at(2) & 0x3F);
}

// Characters that reorder the text around them or end a line without being control
// characters: the bidirectional marks, embeddings, overrides and isolates, and the line and
// paragraph separators. Shown raw, an id holding U+202E reads backwards in a table and U+2028
// breaks its row.
bool reorders_or_breaks_lines(unsigned code) {
  return code == 0x200E || code == 0x200F || (code >= 0x2028 && code <= 0x202E) ||
         (code >= 0x2066 && code <= 0x2069);
}

// The character at text[i] as it is shown, and how many bytes of `text` it took.
std::string_view piece_at(std::string_view text, size_t i, size_t& taken, std::string& buffer) {
  const auto c = static_cast<unsigned char>(text[i]);
  const size_t n = utf8_length(text, i);
  taken = n == 0 ? 1 : n;
  if (n == 0) {
    buffer = fmt::format("\\x{:02x}", c);
    return buffer;
  }
  const bool c0_or_del = n == 1 && (c < 0x20 || c == 0x7F);
  const bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
  if (c0_or_del || c1) {
    const unsigned code = c1 ? static_cast<unsigned char>(text[i + 1]) : c;
    buffer = fmt::format("\\u{:04x}", code);
    return buffer;
  }
  if (const unsigned code = n == 3 ? code_point3(text, i) : 0; reorders_or_breaks_lines(code)) {
    buffer = fmt::format("\\u{:04x}", code);
    return buffer;
  }
  return text.substr(i, n);
}

std::string escaped(std::string_view text, size_t limit) {
  std::string out, buffer;
  for (size_t i = 0; i < text.size();) {
    size_t taken = 0;
    const std::string_view piece = piece_at(text, i, taken, buffer);
    if (out.size() + piece.size() > limit)
      return out + fmt::format("... ({} bytes in all)", text.size());
    out += piece;
    i += taken;
  }
  return out;
}

}  // namespace

std::string shown(std::string_view text, size_t limit) {
  return escaped(text, limit);
}

std::string terminal_safe(std::string_view text) {
  return escaped(text, std::string::npos);
}

}  // namespace normbench
