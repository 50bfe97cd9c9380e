// The conditions of timed samples, on clock event reasons as NVML reports them: which samples
// are marked throttled, when a kernel gets a warning, and what the report and the worker's
// messages carry.
#include <gtest/gtest.h>

#include "app/timing/measurement_conditions.hpp"

namespace normbench {
namespace {

using namespace clock_event;

SamplingConditions with_reasons(std::vector<uint64_t> reasons) {
  SamplingConditions c;
  c.before = GpuReading{1980, 2619, 41, 312.4, kGpuIdle};
  c.after = GpuReading{1755, 2619, 83, 698.0, kSwPowerCap};
  c.sample_reasons = std::move(reasons);
  return c;
}

TEST(MeasurementConditions, OnlyPowerThermalAndHardwareSlowdownsMarkASample) {
  // Idle between samples, the application clock setting, sync boost and the display clock are
  // states or settings, not a slowdown of the running kernel.
  for (uint64_t benign : {uint64_t{0}, kGpuIdle, kApplicationsClocksSetting, kSyncBoost,
                          kDisplayClockSetting, kGpuIdle | kApplicationsClocksSetting})
    EXPECT_FALSE(throttled(benign)) << benign;
  for (uint64_t slowing : {kSwPowerCap, kHwSlowdown, kSwThermalSlowdown, kHwThermalSlowdown,
                           kHwPowerBrakeSlowdown, kGpuIdle | kSwPowerCap})
    EXPECT_TRUE(throttled(slowing)) << slowing;
  const SamplingConditions c =
      with_reasons({kGpuIdle, kSwPowerCap, 0, kHwThermalSlowdown | kGpuIdle, kSyncBoost});
  EXPECT_EQ(throttled_samples(c), (std::vector<size_t>{1, 3}));
}

TEST(MeasurementConditions, AWarningOnlyWhenMostSamplesThrottled) {
  EXPECT_FALSE(throttle_warning(with_reasons({})));
  EXPECT_FALSE(throttle_warning(with_reasons({kSwPowerCap, 0})));  // half is not most
  const auto warning =
      throttle_warning(with_reasons({kSwPowerCap, kSwPowerCap | kHwThermalSlowdown, 0}));
  ASSERT_TRUE(warning);
  EXPECT_EQ(*warning,
            "2 of 3 samples taken while the GPU throttled (sw_power_cap, hw_thermal_slowdown)");
}

TEST(MeasurementConditions, ReasonsAreNamedAndUnknownBitsShown) {
  EXPECT_EQ(clock_event_names(0), "");
  EXPECT_EQ(clock_event_names(kGpuIdle | kSwThermalSlowdown), "gpu_idle, sw_thermal_slowdown");
  EXPECT_EQ(clock_event_names(kHwSlowdown | 0x1000), "hw_slowdown, 0x1000");
}

TEST(MeasurementConditions, TheReportHasTheReadingsAndTheMarkedSamples) {
  const nlohmann::json j = to_report_json(with_reasons({kGpuIdle, kSwPowerCap}));
  EXPECT_EQ(j["before"]["sm_clock_mhz"], 1980);
  EXPECT_EQ(j["before"]["clock_event_reasons"], "gpu_idle");
  EXPECT_EQ(j["after"]["temperature_c"], 83);
  EXPECT_DOUBLE_EQ(j["after"]["power_w"].get<double>(), 698.0);
  EXPECT_EQ(j["throttled_samples"], nlohmann::json({1}));
  EXPECT_EQ(j["throttle_reasons"], "sw_power_cap");
  SamplingConditions unread;
  EXPECT_TRUE(to_report_json(unread)["before"].is_null());
}

TEST(MeasurementConditions, TheWorkersMessageRoundTrips) {
  const SamplingConditions c = with_reasons({kGpuIdle, kSwPowerCap | kHwSlowdown, 0});
  const SamplingConditions back = sampling_conditions_from_message(to_message_json(c));
  EXPECT_EQ(back.sample_reasons, c.sample_reasons);
  ASSERT_TRUE(back.before && back.after);
  EXPECT_EQ(back.before->sm_clock_mhz, 1980);
  EXPECT_EQ(back.after->clock_event_reasons, kSwPowerCap);
  EXPECT_DOUBLE_EQ(back.before->power_w, 312.4);
}

}  // namespace
}  // namespace normbench
