#include "app/util/host_memory.hpp"

#include <fstream>
#include <string>

namespace normbench {

std::optional<uint64_t> available_host_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  uint64_t kb = 0;
  while (meminfo >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return std::nullopt;
}

}  // namespace normbench
