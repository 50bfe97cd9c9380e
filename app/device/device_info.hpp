// A GPU as reports describe it: its model, size, clocks and versions, and whether the run could
// trace its device work and read its conditions.
#pragma once

#include <cstdint>
#include <string>

namespace normbench {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int sm_count = 0;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  uint64_t memory_bytes = 0;
  uint64_t l2_bytes = 0;
  int driver_version = 0;  // as CUDA encodes it: 13000 = 13.0
  int runtime_version = 0;
  int memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
  std::string untraced;     // why the activity trace was unavailable on it; empty: traced
  std::string unmonitored;  // why its clocks and throttling could not be read; empty: read
};

}  // namespace normbench
