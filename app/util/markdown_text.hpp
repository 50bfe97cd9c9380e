// Text inside Markdown (GitHub-flavoured, table cells included) that renders as the text it is:
// no line breaks, markup characters and HTML escaped, so that a reason holding `<img onerror>`
// or a backtick shows as those characters in a pull-request comment.
#pragma once

#include <string>

namespace normbench {

// Underscores inside ids ("layer_norm.naive") and brackets of shapes stay readable: GitHub does
// not emphasise within words, and brackets only make a link when "](" follows.
std::string markdown_text(const std::string& text);

}  // namespace normbench
