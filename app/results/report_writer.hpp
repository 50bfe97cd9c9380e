// The one writer of the run report: a RunReport as JSON (report_schema.hpp; README "Report
// format"). report_reader.hpp reads it back.
#pragma once

#include <nlohmann/json.hpp>

#include "app/results/run_result.hpp"

namespace normbench {

nlohmann::json report_to_json(const RunReport& report);

// A double as JSON, or null when it is NaN or infinite (JSON has no such numbers).
nlohmann::json finite_or_null(double value);

// A GPU as reports write it (the report's `device`), and back: the one form of DeviceInfo in
// JSON, which the device worker's messages use too.
nlohmann::json device_json(const DeviceInfo& device);
DeviceInfo device_info_from_json(const nlohmann::json& j);

// A sharded run's plan as the report's shard.work (and `normbench plan --shard`) write it.
nlohmann::json work_json(const std::vector<WorkEntry>& work);

}  // namespace normbench
