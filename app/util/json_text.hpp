// The text of the JSON documents normbench writes (reports, plans, lists, comparisons).
// Strings from the command line and from plugins need not be UTF-8 (a path is any bytes), and
// nlohmann's plain dump throws on them: a whole run would end without its report. Here such
// bytes become U+FFFD instead.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace normbench {

std::string json_text(const nlohmann::json& document, int indent = 2);

}  // namespace normbench
