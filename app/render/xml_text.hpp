// Text for XML and HTML: the one escaping the HTML report, its SVG charts and the JUnit XML
// share.
#pragma once

#include <string>
#include <string_view>

namespace normbench {

// Text for XML content and attribute values: &, <, >, " and ' escaped, tabs and line breaks
// kept as character references, and characters XML 1.0 cannot hold (other control
// characters) replaced by U+FFFD. UTF-8 passes through.
std::string xml_escape(std::string_view text);

}  // namespace normbench
