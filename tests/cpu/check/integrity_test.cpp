// The integrity rules over what the worker observed: guard damage, escaped work, the copy floor.
#include <gtest/gtest.h>

#include "app/check/integrity.hpp"

namespace normbench {
namespace {

TEST(Integrity, GuardDamageSaysWhereAndHowFar) {
  auto y = [](GuardDamage d) { return std::vector<OutputGuard>{{"y", d}}; };
  EXPECT_FALSE(guard_failure(y({}), {}));
  EXPECT_EQ(*guard_failure(y({0, 4, 0, 4}), {}),
            "wrote outside its output: 4 bytes after it (up to 4 bytes past the end)");
  EXPECT_EQ(*guard_failure(y({1, 0, 1, 0}), {}),
            "wrote outside its output: 1 byte before it (up to 1 byte before the start)");
  EXPECT_EQ(*guard_failure(y({8, 16, 4096, 64}), {}),
            "wrote outside its output: 8 bytes before it (up to 4096 bytes before the start) "
            "and 16 bytes after it (up to 64 bytes past the end)");
  EXPECT_EQ(*guard_failure(y({}), {0, 4, 0, 4}),
            "wrote outside its workspace: 4 bytes after it (up to 4 bytes past the end)");
  // Every other output is named, the first damaged one in output order.
  EXPECT_EQ(*guard_failure({{"dx", {}}, {"dweight", {0, 2, 0, 2}}, {"dbias", {2, 0, 2, 0}}}, {}),
            "wrote outside its output dweight: 2 bytes after it (up to 2 bytes past the end)");
}

TEST(Integrity, EscapedWorkAboveTheLimitFails) {
  EXPECT_FALSE(escaped_work_failure(0.0));
  EXPECT_FALSE(escaped_work_failure(kEscapedWorkLimitUs));
  const auto why = escaped_work_failure(812.4);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why,
            "left work running outside the stream it was given: the device stayed busy 812 us "
            "after that stream finished (allowed: 50 us)");
}

TEST(Integrity, FasterThanCopyFails) {
  // Problem A: 302 MB read, 268 MB written, a 50 MB L2: (302 + 218) MB at 3000 GB/s.
  const CopyFloor a{302000000, 268000000, 50000000, true, 3000.0};
  EXPECT_NEAR(copy_floor_ms(a), 520e6 / 3e12 * 1e3, 1e-12);
  EXPECT_FALSE(below_copy_floor(0.3, a));
  EXPECT_FALSE(below_copy_floor(0.9 * copy_floor_ms(a), a));  // within the margin
  const auto why = below_copy_floor(0.0012, a);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("median 0.0012 ms is faster than moving the problem's bytes through DRAM"),
            std::string::npos)
      << *why;
  EXPECT_NE(why->find("--allow-faster-than-copy"), std::string::npos) << *why;
  CopyFloor no_copy = a;
  no_copy.copy_gb_per_s = 0.0;
  EXPECT_FALSE(below_copy_floor(0.0012, no_copy));  // no copy bandwidth: no floor
  // An output that fits in L2 may end there: only the inputs bound the time.
  const CopyFloor small{16000000, 16000000, 50000000, true, 3000.0};
  EXPECT_NEAR(copy_floor_ms(small), 16e6 / 3e12 * 1e3, 1e-12);
  // Without eviction, inputs that fit in L2 may be served from it: no floor at all.
  CopyFloor hot = small;
  hot.l2_evicted = false;
  EXPECT_EQ(copy_floor_ms(hot), 0.0);
}

}  // namespace
}  // namespace normbench
