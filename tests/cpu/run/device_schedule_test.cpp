// --devices without a GPU: parsing and resolving the list, the threads of each GPU's harness,
// the order problems are handed out in, the host-memory admission rule, and the queue that
// the GPUs' harness threads share (with real threads).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "app/run/device_schedule.hpp"
#include "app/util/errors.hpp"

namespace normbench {
namespace {

std::string usage_error(const std::string& text) {
  try {
    parse_devices(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ParseDevices, AllOrAListInTheOrderGiven) {
  EXPECT_TRUE(parse_devices("all").all);
  EXPECT_EQ(parse_devices("0").indices, (std::vector<int>{0}));
  EXPECT_EQ(parse_devices("0,1").indices, (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_devices("3,1,7").indices, (std::vector<int>{3, 1, 7}));
  EXPECT_FALSE(parse_devices("3,1").all);
}

TEST(ParseDevices, RefusesBadListsNamingTheValue) {
  for (const std::string bad : {"", ",", "0,", ",1", "0,,1", "a", "-1", "0,-1", " 0", "0 ,1", "1.5",
                                "ALL", "all,0", "99999", "0x1"}) {
    const std::string what = usage_error(bad);
    EXPECT_NE(what.find("--devices " + bad + ":"), std::string::npos)
        << "\"" << bad << "\": " << what;
    EXPECT_NE(what.find("allowed: all"), std::string::npos) << what;
  }
  EXPECT_NE(usage_error("0,1,0").find("named twice"), std::string::npos);
  EXPECT_NE(usage_error("1,01").find("named twice"), std::string::npos);
}

TEST(ResolveDevices, AllIsEveryVisibleGpuAndIndicesMustExist) {
  EXPECT_EQ(resolve_devices(parse_devices("all"), 4, "all"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(resolve_devices(parse_devices("1,0"), 2, "1,0"), (std::vector<int>{1, 0}));
  try {
    resolve_devices(parse_devices("0,2"), 2, "0,2");
    ADD_FAILURE() << "GPU 2 of 2 accepted";
  } catch (const UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--devices 0,2: no GPU 2"), std::string::npos) << what;
    EXPECT_NE(what.find("0 to 1 (2 visible)"), std::string::npos) << what;
  }
  EXPECT_THROW(resolve_devices(parse_devices("1"), 1, "1"), UsageError);
}

TEST(ThreadsPerDevice, AllButOneCorePerOtherGpuAndAtLeastOne) {
  EXPECT_EQ(threads_per_device(16, 1), 16);
  EXPECT_EQ(threads_per_device(16, 2), 15);
  EXPECT_EQ(threads_per_device(128, 8), 121);
  EXPECT_EQ(threads_per_device(4, 8), 1);
  EXPECT_EQ(threads_per_device(1, 2), 1);
}

std::vector<size_t> indices(const std::vector<QueuedProblem>& problems) {
  std::vector<size_t> out;
  for (const auto& p : problems) out.push_back(p.index);
  return out;
}

TEST(HandingOrder, PlanOrderOnOneGpuLargestFirstOnSeveral) {
  const std::vector<QueuedProblem> plan = {{0, 10, 0}, {1, 30, 0}, {2, 20, 0}, {3, 30, 0}};
  EXPECT_EQ(indices(handing_order(plan, 1)), (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(indices(handing_order(plan, 2)), (std::vector<size_t>{1, 3, 2, 0}));
}

TEST(Admissible, TheFirstThatFitsBesideThoseInFlight) {
  const std::vector<QueuedProblem> pending = {{0, 9, 60}, {1, 8, 30}, {2, 7, 10}};
  EXPECT_EQ(admissible(pending, 0, 0, 100), 0u);
  EXPECT_EQ(admissible(pending, 50, 1, 100), 1u);            // 60 does not fit beside 50; 30 does
  EXPECT_EQ(admissible(pending, 80, 1, 100), 2u);            // only the smallest
  EXPECT_EQ(admissible(pending, 95, 2, 100), std::nullopt);  // wait for one to finish
  EXPECT_EQ(admissible(pending, 95, 2, std::nullopt), 0u);   // no budget known: no waiting
  EXPECT_EQ(admissible({}, 0, 0, 100), std::nullopt);
  // Too large for the machine: it starts only alone (its runner then skips it).
  const std::vector<QueuedProblem> huge = {{0, 9, 500}, {1, 8, 10}};
  EXPECT_EQ(admissible(huge, 10, 1, 100), 1u);
  EXPECT_EQ(admissible(huge, 0, 0, 100), 0u);
  const std::vector<QueuedProblem> enormous = {{0, 9, UINT64_MAX}};
  EXPECT_EQ(admissible(enormous, 10, 1, 100), std::nullopt);  // no overflow
}

TEST(ProblemQueue, EveryProblemOnceAndInFlightMemoryWithinTheBudget) {
  std::vector<QueuedProblem> problems;
  for (size_t i = 0; i < 40; ++i) problems.push_back({i, 40 - i, 10 + (i * 7) % 50});
  const uint64_t budget = 100;
  ProblemQueue queue(handing_order(problems, 4), budget);
  std::mutex mutex;
  std::vector<size_t> taken;
  std::atomic<uint64_t> in_flight{0};
  std::atomic<bool> over_budget{false};
  std::vector<std::thread> lanes;
  for (int lane = 0; lane < 4; ++lane)
    lanes.emplace_back([&] {
      while (const auto i = queue.take()) {
        const uint64_t bytes = problems[*i].host_bytes;
        if ((in_flight += bytes) > budget) over_budget = true;
        std::this_thread::sleep_for(std::chrono::microseconds(200 + 50 * (*i % 5)));
        in_flight -= bytes;
        {
          std::lock_guard<std::mutex> lock(mutex);
          taken.push_back(*i);
        }
        queue.finish(*i);
      }
    });
  for (auto& t : lanes) t.join();
  EXPECT_FALSE(over_budget);
  std::sort(taken.begin(), taken.end());
  std::vector<size_t> all(40);
  for (size_t i = 0; i < 40; ++i) all[i] = i;
  EXPECT_EQ(taken, all);
}

TEST(ProblemQueue, CloseStopsHandingOutAndWakesTheWaiting) {
  ProblemQueue queue({{0, 2, 80}, {1, 1, 80}}, 100);
  const auto first = queue.take();
  ASSERT_EQ(first, 0u);
  std::optional<size_t> second = 42;
  std::thread waiter([&] { second = queue.take(); });  // waits: 80 + 80 > 100
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  queue.close();
  waiter.join();
  EXPECT_EQ(second, std::nullopt);
}

TEST(ProblemQueue, AFinishedProblemLetsTheWaitingOneStart) {
  ProblemQueue queue({{0, 2, 80}, {1, 1, 80}}, 100);
  ASSERT_EQ(queue.take(), 0u);
  std::optional<size_t> second;
  std::thread waiter([&] { second = queue.take(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  queue.finish(0);
  waiter.join();
  EXPECT_EQ(second, 1u);
  queue.finish(1);
  EXPECT_EQ(queue.take(), std::nullopt);
}

}  // namespace
}  // namespace normbench
