// User-provided text (ids, paths, option values, reasons from reports and plugins) as
// normbench's messages and terminal tables show it: bounded, so that a 20 MB id does not
// become a 20 MB message, and with control characters escaped, so that an id holding escape
// sequences or newlines cannot drive or forge the terminal that shows it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace normbench {

// Enough of an id, a path or a value to recognise it in a message.
inline constexpr size_t kShownTextLimit = 200;

// `text` with control characters (C0, DEL, C1) and the characters that reorder text or break
// lines (U+200E, U+200F, U+2028-U+202E, U+2066-U+2069) written as \u001b, and bytes that are
// not UTF-8 as \xff; when that is longer than `limit` characters, its first ones (whole characters)
// followed by "... (N bytes in all)".
std::string shown(std::string_view text, size_t limit = kShownTextLimit);

// The same escaping with nothing cut: for terminal output whose length is bounded elsewhere.
std::string terminal_safe(std::string_view text);

}  // namespace normbench
