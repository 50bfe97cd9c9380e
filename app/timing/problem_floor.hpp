// A problem's floor: the least time its launch can take on a GPU, the longer of moving its
// minimum bytes at the measured copy bandwidth (the copy floor) and the shortest launch that
// moves a few cache lines (the latency floor, with L2 evicted or kept as the problem's samples
// are). Large problems are bound by the copy, a few decode rows or a small GroupNorm by latency.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "app/timing/timing_result.hpp"

namespace normbench {

// The medians of a LatencyFloor, as reports carry them.
struct LatencyFloorMs {
  double empty_launch_ms = 0.0;
  double cold_ms = 0.0;  // L2 evicted before each sample
  double warm_ms = 0.0;  // L2 kept
  double for_l2(bool evicted) const { return evicted ? cold_ms : warm_ms; }
};
LatencyFloorMs latency_floor_ms(const LatencyFloor& floor);

enum class FloorBound { copy, latency };
const char* to_string(FloorBound bound);
std::optional<FloorBound> floor_bound_from_string(const std::string& text);

struct ProblemFloor {
  double ms = 0.0;
  FloorBound bound = FloorBound::copy;
};

// Empty when neither floor is known (no copy bandwidth or no bytes, and no latency floor).
std::optional<ProblemFloor> problem_floor(std::optional<int64_t> min_bytes,
                                          std::optional<double> copy_gb_per_s,
                                          const std::optional<LatencyFloorMs>& latency,
                                          bool l2_evicted);

// The floor over the median, in percent: 100% is a kernel at its floor.
double percent_of_floor(const ProblemFloor& floor, double median_ms);

// "2.9 us cold, 2.1 us warm (empty launch 1.8 us)", in the units of `micro` ("us" or "µs").
std::string latency_floor_text(const LatencyFloorMs& floor, const char* micro);

}  // namespace normbench
