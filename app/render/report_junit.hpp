// `normbench report --format junit`: JUnit XML for CI systems (GitHub Actions, GitLab,
// Jenkins). Each problem is a testsuite and each of its kernels (per input report) a testcase:
// passed is a plain testcase; failed a <failure>, error and not_run an <error> (a GPU that died
// must not read as green), not_supported and skipped a <skipped>, each with the reason as its
// message. The time and bandwidth go to the testcase's <system-out>.
#pragma once

#include <string>

#include "app/render/report_model.hpp"

namespace normbench {

std::string render_junit(const ReportModel& model);

}  // namespace normbench
