// The conditions of a kernel's timed samples: the GPU's clocks, temperature and power before and
// after its sampling, and after every sample the reasons the driver gives for clocks below
// their maximum (NVML's clock event reasons). A sample taken while the GPU throttled (power or
// thermal limits, a hardware slowdown) is marked; a kernel most of whose samples throttled gets
// a warning, not a failure: its time is the GPU's state as much as its own.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace normbench {

// One reading of the GPU (app/timing/gpu_conditions.hpp reads it through NVML).
struct GpuReading {
  int sm_clock_mhz = 0;
  int memory_clock_mhz = 0;
  int temperature_c = 0;
  double power_w = 0.0;
  uint64_t clock_event_reasons = 0;  // NVML's bit mask, below
};

// NVML's clock event reasons (nvmlClocksEventReason*), as the driver reports them.
namespace clock_event {
inline constexpr uint64_t kGpuIdle = 0x1;
inline constexpr uint64_t kApplicationsClocksSetting = 0x2;
inline constexpr uint64_t kSwPowerCap = 0x4;
inline constexpr uint64_t kHwSlowdown = 0x8;
inline constexpr uint64_t kSyncBoost = 0x10;
inline constexpr uint64_t kSwThermalSlowdown = 0x20;
inline constexpr uint64_t kHwThermalSlowdown = 0x40;
inline constexpr uint64_t kHwPowerBrakeSlowdown = 0x80;
inline constexpr uint64_t kDisplayClockSetting = 0x100;
// The reasons that slow a running kernel down. Idle, the application clock setting, sync boost
// and the display clock are not: the first is the state between samples, the others settings.
inline constexpr uint64_t kThrottling =
    kSwPowerCap | kHwSlowdown | kSwThermalSlowdown | kHwThermalSlowdown | kHwPowerBrakeSlowdown;
}  // namespace clock_event

struct SamplingConditions {
  std::optional<GpuReading> before;      // just before the first warm-up launch
  std::optional<GpuReading> after;       // just after the last sample
  std::vector<uint64_t> sample_reasons;  // after each sample, its clock event reasons
};

// "sw_power_cap, hw_thermal_slowdown" for the reasons in `mask` (known bits, in bit order;
// unknown ones as hex).
std::string clock_event_names(uint64_t mask);
bool throttled(uint64_t reasons);
// The samples taken while the GPU throttled.
std::vector<size_t> throttled_samples(const SamplingConditions& conditions);
// "62 of 100 samples taken while the GPU throttled (sw_power_cap)" when more than half were;
// else nothing.
std::optional<std::string> throttle_warning(const SamplingConditions& conditions);

// {sm_clock_mhz, memory_clock_mhz, temperature_c, power_w, clock_event_reasons: [names]}.
nlohmann::json to_json(const GpuReading& reading);
// As the report writes them: {before, after, throttled_samples[], throttle_reasons}.
nlohmann::json to_report_json(const SamplingConditions& conditions);
// As the device worker sends them (every sample's reasons), and back.
nlohmann::json to_message_json(const SamplingConditions& conditions);
SamplingConditions sampling_conditions_from_message(const nlohmann::json& j);

}  // namespace normbench
