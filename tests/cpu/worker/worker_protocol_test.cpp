// The worker's reports through their JSON messages: every output's guard damage comes back
// under its own name, so that the harness can say which output a kernel wrote past.
#include <gtest/gtest.h>

#include "app/worker/worker_protocol.hpp"

namespace normbench {
namespace {

TEST(WorkerProtocol, LaunchReportsKeepEachOutputsGuards) {
  LaunchReport sent;
  sent.output_guards = {{"dx", {}}, {"dweight", {0, 4, 0, 8}}, {"dbias", {2, 0, 3, 0}}};
  sent.workspace_guard = {1, 1, 1, 1};
  sent.output_fingerprint = 12345;
  const LaunchReport got = launch_report_from(nlohmann::json::parse(to_json(sent).dump()));
  ASSERT_EQ(got.output_guards.size(), 3u);
  EXPECT_EQ(got.output_guards[1].output, "dweight");
  EXPECT_EQ(got.output_guards[1].damage.after_reach, 8u);
  EXPECT_EQ(got.output_guards[2].damage.before_bytes, 2u);
  EXPECT_EQ(got.workspace_guard.after_bytes, 1u);
  EXPECT_EQ(got.output_fingerprint, 12345u);
  EXPECT_EQ(*guard_failure(got.output_guards, got.workspace_guard),
            "wrote outside its output dweight: 4 bytes after it (up to 8 bytes past the end)");
}

TEST(WorkerProtocol, TimingReportsKeepEachOutputsGuards) {
  TimingReport sent;
  sent.launch_error = "refused";  // no timing to send
  sent.output_guards = {{"y", {0, 2, 0, 2}}, {"s", {}}};
  const TimingReport got = timing_report_from(nlohmann::json::parse(to_json(sent).dump()));
  ASSERT_EQ(got.output_guards.size(), 2u);
  EXPECT_EQ(got.output_guards[0].output, "y");
  EXPECT_EQ(got.output_guards[0].damage.after_bytes, 2u);
  EXPECT_FALSE(got.output_guards[1].damage.any());
}

TEST(WorkerProtocol, TheBoundsCheckGoesAndComesBack) {
  TimingRequest request;
  request.check_bounds = true;
  EXPECT_TRUE(timing_request_from(nlohmann::json::parse(to_json(request).dump())).check_bounds);
  TimingReport sent;
  sent.launch_error = "refused";
  sent.bounds_checked = 12;
  sent.bounds_mismatch = 4;
  sent.bounds_output = "s";
  sent.bounds_outside = 1024;
  sent.bounds_first = 17;
  const TimingReport got = timing_report_from(nlohmann::json::parse(to_json(sent).dump()));
  EXPECT_EQ(got.bounds_checked, 12);
  EXPECT_EQ(got.bounds_mismatch, 4);
  EXPECT_EQ(got.bounds_output, "s");
  EXPECT_EQ(got.bounds_outside, 1024u);
  EXPECT_EQ(got.bounds_first, 17u);
}

}  // namespace
}  // namespace normbench
