// The JSON report of a run (schema_version 1, documented in README.md "Report format").
#pragma once

#include <nlohmann/json.hpp>

#include "app/results/run_result.hpp"

namespace normbench {

inline constexpr int kReportSchemaVersion = 1;

nlohmann::json report_to_json(const RunReport& report);

// A double as JSON, or null when it is NaN or infinite (JSON has no such numbers).
nlohmann::json finite_or_null(double value);

}  // namespace normbench
