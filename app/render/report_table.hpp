// The human-readable summary of a run printed after the JSON report is written.
#pragma once

#include <string>

#include "app/results/run_result.hpp"

namespace normbench {

std::string format_run_table(const RunReport& report);

}  // namespace normbench
