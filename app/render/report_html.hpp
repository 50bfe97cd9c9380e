// `normbench report --out FILE.html`: one self-contained HTML page (inline CSS and SVG; no
// scripts, no network) with the tables of report_format.hpp and, per problem, a chart of the
// speedups and one of the bandwidth as a share of the measured copy bandwidth.
#pragma once

#include <string>

#include "app/render/report_model.hpp"

namespace normbench {

std::string render_html(const ReportModel& model);

}  // namespace normbench
