// The device's latency floor, measured once per run beside its copy bandwidth: for a problem of
// a few kilobytes the copy floor is nanoseconds, while no launch takes less than microseconds.
#pragma once

#include "app/device/device_context.hpp"
#include "app/timing/kernel_timer.hpp"

namespace normbench {

// Times an empty launch of one block, and one warp that reads kLatencyLines 128-byte lines from
// one buffer and writes them to another, with L2 evicted before each sample (cold) and kept
// (warm), as problems with timing.flush_l2 true and false are timed.
inline constexpr int kLatencyLines = 4;
LatencyFloor measure_latency_floor(const DeviceContext& device, const L2Evictor& evictor);

}  // namespace normbench
