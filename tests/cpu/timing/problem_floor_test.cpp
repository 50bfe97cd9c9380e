// A problem's floor: the copy floor for problems of many bytes, the latency floor (cold or warm,
// as the problem's samples are) for problems of few, and whichever is known when one is not.
#include "app/timing/problem_floor.hpp"

#include <gtest/gtest.h>

namespace normbench {
namespace {

// An H100-like device: 3000 GB/s copy, 2.9 us cold and 2.1 us warm for a few cache lines.
constexpr double kCopy = 3000.0;
const LatencyFloorMs kLatency{0.0018, 0.0029, 0.0021};

TEST(ProblemFloor, ManyBytesAreBoundByTheCopy) {
  // 570 MB at 3000 GB/s: 190 us, far above any launch.
  const auto floor = problem_floor(570'000'000, kCopy, kLatency, true);
  ASSERT_TRUE(floor);
  EXPECT_EQ(floor->bound, FloorBound::copy);
  EXPECT_DOUBLE_EQ(floor->ms, 570e6 / 3000e6);
}

TEST(ProblemFloor, FewBytesAreBoundByTheLatencyOfTheirL2Setting) {
  // A decode row of 8 KB in and out: 5.5 ns at the copy bandwidth.
  const auto cold = problem_floor(16'384, kCopy, kLatency, true);
  ASSERT_TRUE(cold);
  EXPECT_EQ(cold->bound, FloorBound::latency);
  EXPECT_EQ(cold->ms, 0.0029);
  const auto warm = problem_floor(16'384, kCopy, kLatency, false);
  ASSERT_TRUE(warm);
  EXPECT_EQ(warm->bound, FloorBound::latency);
  EXPECT_EQ(warm->ms, 0.0021);
}

TEST(ProblemFloor, TheLongerFloorBindsAndTheCopyWinsATie) {
  // 8.7 MB take exactly the cold latency floor, and more than the warm one.
  const int64_t bytes = 8'700'000;
  EXPECT_EQ(problem_floor(bytes, kCopy, kLatency, true)->bound, FloorBound::copy);
  EXPECT_EQ(problem_floor(bytes, kCopy, kLatency, false)->bound, FloorBound::copy);
  EXPECT_EQ(problem_floor(bytes - 1000, kCopy, kLatency, true)->bound, FloorBound::latency);
  EXPECT_EQ(problem_floor(bytes - 1000, kCopy, kLatency, false)->bound, FloorBound::copy);
}

TEST(ProblemFloor, WhicheverFloorIsKnown) {
  // Reports older than the latency floor: the copy floor alone.
  const auto copy = problem_floor(16'384, kCopy, std::nullopt, true);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->bound, FloorBound::copy);
  EXPECT_DOUBLE_EQ(copy->ms, 16384 / 3000e6);
  // No bytes or no copy bandwidth: the latency floor alone.
  EXPECT_EQ(problem_floor(std::nullopt, kCopy, kLatency, true)->ms, 0.0029);
  EXPECT_EQ(problem_floor(16'384, std::nullopt, kLatency, false)->ms, 0.0021);
  EXPECT_EQ(problem_floor(16'384, 0.0, kLatency, false)->bound, FloorBound::latency);
  // Neither: no floor.
  EXPECT_FALSE(problem_floor(16'384, std::nullopt, std::nullopt, true));
  EXPECT_FALSE(problem_floor(std::nullopt, kCopy, std::nullopt, true));
}

TEST(ProblemFloor, PercentIsTheFloorOverTheMedian) {
  EXPECT_DOUBLE_EQ(percent_of_floor({0.0029, FloorBound::latency}, 0.0058), 50.0);
  EXPECT_DOUBLE_EQ(percent_of_floor({0.19, FloorBound::copy}, 0.19), 100.0);
  // A median that ties the latency floor within the events' resolution reads past 100%.
  EXPECT_GT(percent_of_floor({0.0029, FloorBound::latency}, 0.00285), 100.0);
}

TEST(ProblemFloor, NamesAndText) {
  EXPECT_STREQ(to_string(FloorBound::copy), "copy");
  EXPECT_STREQ(to_string(FloorBound::latency), "latency");
  EXPECT_EQ(floor_bound_from_string("copy"), FloorBound::copy);
  EXPECT_EQ(floor_bound_from_string("latency"), FloorBound::latency);
  EXPECT_FALSE(floor_bound_from_string("Latency"));
  EXPECT_EQ(latency_floor_text(kLatency, "us"), "2.9 us cold, 2.1 us warm (empty launch 1.8 us)");
}

TEST(ProblemFloor, MediansOfAMeasuredLatencyFloor) {
  LatencyFloor measured;
  measured.empty_launch.summary.median = 0.0018;
  measured.cold.summary.median = 0.0029;
  measured.warm.summary.median = 0.0021;
  const LatencyFloorMs ms = latency_floor_ms(measured);
  EXPECT_EQ(ms.empty_launch_ms, 0.0018);
  EXPECT_EQ(ms.for_l2(true), 0.0029);
  EXPECT_EQ(ms.for_l2(false), 0.0021);
}

}  // namespace
}  // namespace normbench
