// User text in messages and terminal tables: bounded, control characters and characters that
// reorder text or break lines escaped, bytes that are not UTF-8 shown as such, whole characters
// kept.
#include "app/util/shown_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace normbench {
namespace {

TEST(ShownText, ShortPlainTextIsUnchanged) {
  EXPECT_EQ(shown("layer_norm.naive"), "layer_norm.naive");
  EXPECT_EQ(shown(""), "");
  EXPECT_EQ(shown("Größe ≤ 4"), "Größe ≤ 4");  // UTF-8 passes through
}

TEST(ShownText, LongTextIsCutWithItsLengthNoted) {
  const std::string huge(20000000, 'x');
  const std::string s = shown(huge);
  EXPECT_EQ(s, std::string(200, 'x') + "... (20000000 bytes in all)");
  EXPECT_EQ(shown(std::string(200, 'x')), std::string(200, 'x'));  // exactly the limit: whole
  EXPECT_EQ(shown("abcdef", 3), "abc... (6 bytes in all)");
}

TEST(ShownText, ControlCharactersAreEscaped) {
  EXPECT_EQ(shown("a\x1b]0;title\x07z"), "a\\u001b]0;title\\u0007z");
  EXPECT_EQ(shown("two\nlines\r\t"), "two\\u000alines\\u000d\\u0009");
  EXPECT_EQ(shown("del\x7f"), "del\\u007f");
  EXPECT_EQ(shown("c1 \xc2\x9b"
                  "31m"),
            "c1 \\u009b31m");                                         // U+009B, the one-byte CSI
  EXPECT_EQ(terminal_safe(std::string(1000, '\x1b')).size(), 6000u);  // nothing cut
}

// Raw, U+202E would show an id backwards in a table and U+2028 would break its row.
TEST(ShownText, CharactersThatReorderTextOrBreakLinesAreEscaped) {
  EXPECT_EQ(shown("evil\u202efdp.exe"), "evil\\u202efdp.exe");
  EXPECT_EQ(shown("row\u2028forged"), "row\\u2028forged");
  EXPECT_EQ(shown("\u2029\u200e\u200f\u2066\u2069"), "\\u2029\\u200e\\u200f\\u2066\\u2069");
  EXPECT_EQ(shown("\u2027\u202f\u2065\u206a"), "\u2027\u202f\u2065\u206a");  // neighbours pass
}

TEST(ShownText, BytesThatAreNotUtf8AreShownAsBytes) {
  EXPECT_EQ(shown("\xff.json"), "\\xff.json");
  EXPECT_EQ(shown("\xc3"), "\\xc3");                    // a lead byte without its continuation
  EXPECT_EQ(shown("\xc0\xaf"), "\\xc0\\xaf");           // an overlong '/'
  EXPECT_EQ(shown("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a UTF-16 surrogate
}

TEST(ShownText, CutsBetweenCharactersNotInsideOne) {
  const std::string euros = "€€€€";  // three bytes each
  EXPECT_EQ(shown(euros, 7), "€€... (12 bytes in all)");
  EXPECT_EQ(shown("\x1b\x1b", 7), "\\u001b... (2 bytes in all)");
}

}  // namespace
}  // namespace normbench
