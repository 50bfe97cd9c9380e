// `normbench report --format csv`: one row per problem x kernel (per input report), for
// spreadsheets and scripts. RFC 4180: a header row, CRLF line ends, fields holding a comma, a
// quote or a line break quoted with quotes doubled. Numbers are plain (milliseconds, GB/s,
// percent, ratios) at full precision; an empty field has no value.
#pragma once

#include <string>

#include "app/render/report_model.hpp"

namespace normbench {

std::string render_csv(const ReportModel& model);

// One RFC 4180 field: as is, or quoted when it holds a comma, a quote, CR or LF.
std::string csv_field(const std::string& text);

}  // namespace normbench
