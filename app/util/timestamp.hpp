// The time a report was made, as reports write it.
#pragma once

#include <string>

namespace normbench {

// Now in UTC, ISO 8601 to the second: "2026-01-31T12:00:00Z".
std::string utc_now_iso8601();

}  // namespace normbench
