#include "app/timing/problem_floor.hpp"

#include <fmt/format.h>

namespace normbench {

LatencyFloorMs latency_floor_ms(const LatencyFloor& f) {
  return {f.empty_launch.summary.median, f.cold.summary.median, f.warm.summary.median};
}

const char* to_string(FloorBound bound) {
  return bound == FloorBound::latency ? "latency" : "copy";
}

std::optional<FloorBound> floor_bound_from_string(const std::string& text) {
  if (text == "copy") return FloorBound::copy;
  if (text == "latency") return FloorBound::latency;
  return std::nullopt;
}

std::optional<ProblemFloor> problem_floor(std::optional<int64_t> min_bytes,
                                          std::optional<double> copy_gb_per_s,
                                          const std::optional<LatencyFloorMs>& latency,
                                          bool l2_evicted) {
  std::optional<ProblemFloor> floor;
  if (min_bytes && copy_gb_per_s && *copy_gb_per_s > 0.0)
    floor =
        ProblemFloor{static_cast<double>(*min_bytes) / (*copy_gb_per_s * 1e6), FloorBound::copy};
  const double latency_ms = latency ? latency->for_l2(l2_evicted) : 0.0;
  // The copy wins a tie: a problem whose bytes take as long as the shortest launch is as much
  // bound by them.
  if (latency_ms > 0.0 && (!floor || latency_ms > floor->ms))
    floor = ProblemFloor{latency_ms, FloorBound::latency};
  return floor;
}

double percent_of_floor(const ProblemFloor& floor, double median_ms) {
  return 100.0 * floor.ms / median_ms;
}

std::string latency_floor_text(const LatencyFloorMs& f, const char* micro) {
  return fmt::format("{:.1f} {} cold, {:.1f} {} warm (empty launch {:.1f} {})", f.cold_ms * 1e3,
                     micro, f.warm_ms * 1e3, micro, f.empty_launch_ms * 1e3, micro);
}

}  // namespace normbench
