// `normbench report --format csv`: one row per problem x kernel (per input report), for
// spreadsheets and scripts. RFC 4180: a header row, CRLF line ends, fields holding a comma, a
// quote or a line break quoted with quotes doubled. Numbers are plain (milliseconds, GB/s,
// percent, ratios) at full precision; an empty field has no value. Text that a spreadsheet
// would run as a formula is neutralised (csv_text).
#pragma once

#include <string>

#include "app/render/report_model.hpp"

namespace normbench {

std::string render_csv(const ReportModel& model);

// One RFC 4180 field: as is, or quoted when it holds a comma, a quote, CR or LF.
std::string csv_field(const std::string& text);

// Text from a report (ids, statuses, reasons) for a CSV field: control characters but the line
// feed, and invalid UTF-8, escaped as error messages show them (\u001b, \xff), so that no escape
// sequence reaches a terminal; and a spreadsheet runs a cell that starts with =, +, -, @, a tab or
// a carriage return as a formula ("=HYPERLINK(...)"), so text starting with one of the first four
// gets a leading single quote, as OWASP's advice on CSV injection has it (tab and CR are escaped).
std::string csv_text(const std::string& text);

}  // namespace normbench
