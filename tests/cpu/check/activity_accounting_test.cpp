// The accounting of every device operation, on activity records written down as CUPTI gave
// them on the H100 (scripts/probes/cupti_accounting.cu): which operations belong to which
// launch, and the rules of the timed region.
#include <gtest/gtest.h>

#include "app/check/activity_accounting.hpp"

namespace normbench {
namespace {

constexpr uint32_t kGiven = 13, kOther = 14, kLegacy = 7, kPerThread = 15;
const TracedStreams kStreams{kGiven, kLegacy, kPerThread};
const char* kSpin = "_ZN9normbench12_GLOBAL__N_113rms_norm_rowsI4bf16Li8EEEvPKT_PS3_i";

// Builds a log call by call, in the order the calls are made; correlation ids grow as CUPTI's.
class LogBuilder {
 public:
  LogBuilder& mark(uint64_t serial, MarkRole role) {
    mark_ = make_mark(serial, role);
    return *this;
  }
  LogBuilder& unmarked() {
    mark_.reset();
    return *this;
  }
  LogBuilder& kernel(uint32_t stream, const char* name = kSpin, uint64_t ns = 2700) {
    const uint32_t c = call();
    log_.operations.push_back({OperationKind::kernel, name, stream, c, clock_, clock_ + ns, 0});
    clock_ += ns + 100;
    return *this;
  }
  LogBuilder& memcpy(uint32_t stream, uint64_t bytes) {
    const uint32_t c = call();
    log_.operations.push_back(
        {OperationKind::memcpy, "DtoD", stream, c, clock_, clock_ + 1000, bytes});
    clock_ += 1100;
    return *this;
  }
  // Returns the record's sync id through `sync`.
  LogBuilder& record(uint32_t stream, uint64_t* sync = nullptr) {
    const uint32_t c = call();
    log_.event_records.push_back({c, stream, ++sync_});
    if (sync) *sync = sync_;
    return *this;
  }
  LogBuilder& wait(uint32_t stream, uint64_t sync) {
    log_.stream_waits.push_back({call(), stream, sync});
    return *this;
  }
  // A traced launch of the harness: start record, `launch` under the launch mark, end record.
  template <typename F>
  LogBuilder& traced(uint64_t serial, F&& launch) {
    mark(serial, MarkRole::start).record(kGiven);
    mark(serial, MarkRole::launch);
    launch(*this);
    mark(serial, MarkRole::end).record(kGiven);
    return mark(0, MarkRole::harness);
  }
  const ActivityLog& log() const { return log_; }

 private:
  uint32_t call() {
    const uint32_t c = ++correlation_;
    if (mark_) log_.marks[c] = *mark_;
    return c;
  }
  ActivityLog log_;
  std::optional<uint64_t> mark_ = make_mark(0, MarkRole::harness);
  uint32_t correlation_ = 100;
  uint64_t sync_ = 0;
  uint64_t clock_ = 1000000;
};

Accounting account(const LogBuilder& b) {
  return account_launches(b.log(), kStreams);
}

TEST(ActivityAccounting, AKernelOnTheGivenStreamIsInside) {
  LogBuilder b;
  b.kernel(kGiven, "evict_l2").traced(1, [](LogBuilder& l) { l.kernel(kGiven); });
  b.kernel(kGiven, "fingerprint");  // the harness's, after the launch
  const Accounting a = account(b);
  EXPECT_FALSE(a.escape) << *a.escape;
  ASSERT_EQ(a.launches.size(), 1u);
  ASSERT_EQ(a.launches[0].operations.size(), 1u);  // the harness's kernels are not the kernel's
  EXPECT_EQ(a.launches[0].operations[0].name, kSpin);
  EXPECT_NEAR(a.launches[0].busy_us, 2.7, 1e-9);
}

TEST(ActivityAccounting, AStreamOfItsOwnIsNamedWithTheKernelAndItsTime) {
  LogBuilder b;
  b.traced(1, [](LogBuilder& l) { l.kernel(16, kSpin, 1100); });
  const Accounting a = account(b);
  ASSERT_TRUE(a.escape);
  EXPECT_EQ(*a.escape,
            "ran 1 kernel on another stream: rms_norm_rows<bf16, 8>, 1.1 us (the given stream did "
            "not wait for it before the timed end)");
}

TEST(ActivityAccounting, TheDefaultStreamsAreNamed) {
  LogBuilder legacy, per_thread;
  legacy.traced(1, [](LogBuilder& l) { l.kernel(kLegacy); });
  per_thread.traced(1, [](LogBuilder& l) { l.kernel(kPerThread); });
  EXPECT_NE(account(legacy).escape->find("ran 1 kernel on the legacy default stream"),
            std::string::npos);
  EXPECT_NE(account(per_thread).escape->find("ran 1 kernel on the per-thread default stream"),
            std::string::npos);
}

TEST(ActivityAccounting, AForkAndJoinThroughEventsIsInside) {
  LogBuilder b;
  b.traced(1, [](LogBuilder& l) {
    uint64_t fork = 0, join = 0;
    l.record(kGiven, &fork).wait(kOther, fork);
    l.kernel(kOther).kernel(kGiven);
    l.record(kOther, &join).wait(kGiven, join);
  });
  const Accounting a = account(b);
  EXPECT_FALSE(a.escape) << *a.escape;
  ASSERT_EQ(a.launches.size(), 1u);
  EXPECT_EQ(a.launches[0].operations.size(), 2u);
  // The two kernels ran one after the other here: both count once.
  EXPECT_NEAR(a.launches[0].busy_us, 5.4, 1e-9);
}

TEST(ActivityAccounting, AJoinWithoutAForkCouldStartBeforeTheTimedStart) {
  LogBuilder b;
  b.traced(1, [](LogBuilder& l) {
    uint64_t join = 0;
    l.kernel(kOther).record(kOther, &join).wait(kGiven, join);
  });
  const Accounting a = account(b);
  ASSERT_TRUE(a.escape);
  EXPECT_NE(a.escape->find("it did not wait for the given stream's timed start"), std::string::npos)
      << *a.escape;
}

TEST(ActivityAccounting, AForkWithoutAJoinIsOutside) {
  LogBuilder b;
  b.traced(1, [](LogBuilder& l) {
    uint64_t fork = 0;
    l.record(kGiven, &fork).wait(kOther, fork).kernel(kOther);
  });
  const Accounting a = account(b);
  ASSERT_TRUE(a.escape);
  EXPECT_NE(a.escape->find("did not wait for it before the timed end"), std::string::npos);
}

TEST(ActivityAccounting, AJoinAfterTheTimedEndIsTooLate) {
  LogBuilder b;
  uint64_t fork = 0;
  b.traced(1, [&](LogBuilder& l) { l.record(kGiven, &fork).wait(kOther, fork).kernel(kOther); });
  uint64_t join = 0;
  b.unmarked().record(kOther, &join).wait(kGiven, join);  // another thread joins later
  EXPECT_TRUE(account(b).escape);
}

TEST(ActivityAccounting, AnotherThreadLaunchingAfterTheCallReturnedCountsAgainstTheKernel) {
  LogBuilder b;
  b.traced(1, [](LogBuilder& l) { l.kernel(kGiven); });
  b.unmarked().kernel(kGiven, kSpin, 1100);  // a thread the launch left behind
  const Accounting a = account(b);
  ASSERT_TRUE(a.escape);
  EXPECT_EQ(*a.escape,
            "ran 1 kernel on the given stream: rms_norm_rows<bf16, 8>, 1.1 us (enqueued outside "
            "its launch call: by another thread, or after the call returned)");
  ASSERT_EQ(a.launches.size(), 1u);
  EXPECT_EQ(a.launches[0].operations.size(), 2u);
}

TEST(ActivityAccounting, WorkLeftByAnotherKernelBeforeTheFirstLaunchIsAStrayNotAnEscape) {
  LogBuilder b;
  b.unmarked().kernel(kGiven, kSpin, 1100);  // the thread of the kernel that ran before
  b.traced(1, [](LogBuilder& l) { l.kernel(kGiven); });
  const Accounting other = account_launches(b.log(), kStreams, /*same_kernel_before=*/false);
  EXPECT_FALSE(other.escape) << *other.escape;
  ASSERT_TRUE(other.strays);
  EXPECT_EQ(*other.strays,
            "1 operation enqueued by no launch call: rms_norm_rows<bf16, 8>, 1.1 us");
  EXPECT_EQ(other.launches[0].operations.size(), 1u);
  // The same kernel's: its own thread, charged to it.
  const Accounting same = account(b);
  ASSERT_TRUE(same.escape);
  EXPECT_FALSE(same.strays);
}

TEST(ActivityAccounting, AnotherThreadsWorkInsideTheTimedRegionIsInside) {
  LogBuilder b;
  b.traced(1, [](LogBuilder& l) { l.unmarked().kernel(kGiven); });
  EXPECT_FALSE(account(b).escape);
}

TEST(ActivityAccounting, CopiesAndMemsetsAreOperationsToo) {
  LogBuilder b;
  b.traced(1, [](LogBuilder& l) { l.memcpy(kOther, 4096).memcpy(kOther, 4096); });
  const Accounting a = account(b);
  ASSERT_TRUE(a.escape);
  EXPECT_EQ(*a.escape,
            "ran 2 memcpys on another stream: memcpy DtoD 4.1 KB, 1.0 us, and 1 more (the given "
            "stream did not wait for it before the timed end)");
}

TEST(ActivityAccounting, MixedEscapesNameTheFirst) {
  LogBuilder b;
  b.traced(1, [](LogBuilder& l) { l.kernel(kLegacy).memcpy(kOther, 10); });
  EXPECT_EQ(*account(b).escape,
            "ran 2 operations outside its timed region, the first a kernel on the legacy default "
            "stream: rms_norm_rows<bf16, 8>, 2.7 us (the given stream did not wait for it before "
            "the timed end)");
}

TEST(ActivityAccounting, EachLaunchOfALogIsAccountedAlone) {
  LogBuilder b;
  b.traced(1, [](LogBuilder& l) { l.kernel(kGiven); });
  b.traced(2, [](LogBuilder& l) { l.kernel(kGiven).kernel(kGiven); });
  b.traced(3, [](LogBuilder&) {});  // a launch that enqueued nothing
  const Accounting a = account(b);
  EXPECT_FALSE(a.escape);
  ASSERT_EQ(a.launches.size(), 3u);
  EXPECT_EQ(a.launches[0].operations.size(), 1u);
  EXPECT_EQ(a.launches[1].operations.size(), 2u);
  EXPECT_EQ(a.launches[2].operations.size(), 0u);
  EXPECT_EQ(a.launches[2].busy_us, 0.0);
}

TEST(ActivityAccounting, AnOperationOfLaunchOneInsideLaunchTwosRegionIsStillOutside) {
  // Launch 1 leaves a kernel on its own stream; launch 2's region cannot adopt it.
  LogBuilder b;
  b.traced(1, [](LogBuilder& l) { l.kernel(kOther); });
  b.traced(2, [](LogBuilder& l) { l.kernel(kGiven); });
  EXPECT_TRUE(account(b).escape);
}

TEST(ActivityAccounting, LostMarkersCannotBeAccountedFor) {
  LogBuilder b;
  b.mark(1, MarkRole::launch).kernel(kGiven);
  const Accounting a = account(b);
  ASSERT_TRUE(a.escape);
  EXPECT_NE(a.escape->find("the trace lost the launch's start or end record"), std::string::npos);
}

TEST(ActivityAccounting, KernelNamesAreShortenedForReaders) {
  DeviceOperation op;
  op.name = kSpin;
  EXPECT_EQ(operation_display_name(op), "rms_norm_rows<bf16, 8>");
  op.name = "triton_red_fused_native_layer_norm_0";
  EXPECT_EQ(operation_display_name(op), "triton_red_fused_native_layer_norm_0");
  op.name =
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
      "at::detail::Array<char*, 1>)";
  EXPECT_EQ(operation_display_name(op), "vectorized_elementwise_kernel<...>");
  op.kind = OperationKind::memset;
  op.bytes = 268435456;
  EXPECT_EQ(operation_display_name(op), "memset 268.4 MB");
}

}  // namespace
}  // namespace normbench
