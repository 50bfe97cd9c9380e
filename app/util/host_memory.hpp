// The host memory the kernel says is available for new allocations without swapping.
#pragma once

#include <cstdint>
#include <optional>

namespace normbench {

// MemAvailable of /proc/meminfo in bytes; empty where the kernel does not say.
std::optional<uint64_t> available_host_memory();

}  // namespace normbench
