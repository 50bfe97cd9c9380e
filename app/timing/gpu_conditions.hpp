// In the device worker: the GPU's clocks, temperature, power and clock event reasons, read
// through NVML (libnvidia-ml.so.1, which ships with the driver; loaded at run time, since the
// CPU machines that build normbench have neither the library nor nvml.h). Where it is missing
// or refuses, readings are unavailable and reports say why.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "app/timing/measurement_conditions.hpp"

namespace normbench {

class GpuConditions {
 public:
  // For CUDA device `cuda_device` (matched by PCI bus id: NVML numbers GPUs its own way).
  // Returns nothing and sets `why_not` when NVML is unavailable.
  static std::unique_ptr<GpuConditions> open(int cuda_device, std::string& why_not);
  // A reading now; nothing if NVML failed to answer.
  std::optional<GpuReading> read() const;
  // Only the clock event reasons: the cheap reading taken after every sample.
  std::optional<uint64_t> clock_event_reasons() const;

  struct Api;  // the NVML functions used
  GpuConditions(const Api* api, void* device) : api_(api), device_(device) {}

 private:
  const Api* api_;
  void* device_;  // nvmlDevice_t
};

}  // namespace normbench
