#include "app/timing/measurement_conditions.hpp"

#include <fmt/format.h>

namespace normbench {

std::string clock_event_names(uint64_t mask) {
  static const std::pair<uint64_t, const char*> kNames[] = {
      {clock_event::kGpuIdle, "gpu_idle"},
      {clock_event::kApplicationsClocksSetting, "applications_clocks_setting"},
      {clock_event::kSwPowerCap, "sw_power_cap"},
      {clock_event::kHwSlowdown, "hw_slowdown"},
      {clock_event::kSyncBoost, "sync_boost"},
      {clock_event::kSwThermalSlowdown, "sw_thermal_slowdown"},
      {clock_event::kHwThermalSlowdown, "hw_thermal_slowdown"},
      {clock_event::kHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
      {clock_event::kDisplayClockSetting, "display_clock_setting"}};
  std::string out;
  uint64_t known = 0;
  for (const auto& [bit, name] : kNames) {
    known |= bit;
    if (mask & bit) out += (out.empty() ? "" : ", ") + std::string(name);
  }
  if (mask & ~known) out += fmt::format("{}{:#x}", out.empty() ? "" : ", ", mask & ~known);
  return out;
}

bool throttled(uint64_t reasons) {
  return (reasons & clock_event::kThrottling) != 0;
}

std::vector<size_t> throttled_samples(const SamplingConditions& c) {
  std::vector<size_t> out;
  for (size_t i = 0; i < c.sample_reasons.size(); ++i)
    if (throttled(c.sample_reasons[i])) out.push_back(i);
  return out;
}

std::optional<std::string> throttle_warning(const SamplingConditions& c) {
  const std::vector<size_t> marked = throttled_samples(c);
  if (c.sample_reasons.empty() || 2 * marked.size() <= c.sample_reasons.size()) return std::nullopt;
  uint64_t seen = 0;
  for (size_t i : marked) seen |= c.sample_reasons[i] & clock_event::kThrottling;
  return fmt::format("{} of {} samples taken while the GPU throttled ({})", marked.size(),
                     c.sample_reasons.size(), clock_event_names(seen));
}

nlohmann::json to_json(const GpuReading& r) {
  return {{"sm_clock_mhz", r.sm_clock_mhz},
          {"memory_clock_mhz", r.memory_clock_mhz},
          {"temperature_c", r.temperature_c},
          {"power_w", r.power_w},
          {"clock_event_reasons", clock_event_names(r.clock_event_reasons)}};
}

namespace {
nlohmann::json reading_or_null(const std::optional<GpuReading>& r) {
  return r ? to_json(*r) : nlohmann::json(nullptr);
}
nlohmann::json raw_reading(const std::optional<GpuReading>& r) {
  if (!r) return nullptr;
  return {r->sm_clock_mhz, r->memory_clock_mhz, r->temperature_c, r->power_w,
          r->clock_event_reasons};
}
std::optional<GpuReading> raw_reading_from(const nlohmann::json& j) {
  if (j.is_null()) return std::nullopt;
  return GpuReading{j.at(0), j.at(1), j.at(2), j.at(3), j.at(4)};
}
}  // namespace

nlohmann::json to_report_json(const SamplingConditions& c) {
  uint64_t seen = 0;
  for (uint64_t reasons : c.sample_reasons)
    if (throttled(reasons)) seen |= reasons & clock_event::kThrottling;
  return {{"before", reading_or_null(c.before)},
          {"after", reading_or_null(c.after)},
          {"throttled_samples", throttled_samples(c)},
          {"throttle_reasons", clock_event_names(seen)}};
}

nlohmann::json to_message_json(const SamplingConditions& c) {
  return {{"before", raw_reading(c.before)},
          {"after", raw_reading(c.after)},
          {"sample_reasons", c.sample_reasons}};
}

SamplingConditions sampling_conditions_from_message(const nlohmann::json& j) {
  SamplingConditions c;
  c.before = raw_reading_from(j.at("before"));
  c.after = raw_reading_from(j.at("after"));
  c.sample_reasons = j.at("sample_reasons").get<std::vector<uint64_t>>();
  return c;
}

}  // namespace normbench
