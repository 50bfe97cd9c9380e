// `normbench report --out FILE.md`: the merged reports as GitHub-flavoured Markdown tables,
// for a README or a pull request.
#pragma once

#include <string>

#include "app/render/report_model.hpp"

namespace normbench {

std::string render_markdown(const ReportModel& model);
// The summary table alone, with the failures beneath: what a README shows of a run.
std::string render_markdown_summary(const ReportModel& model);

}  // namespace normbench
