// Planning of the channel_rms_norm kernels without a GPU: which problems each variant takes
// and what channel_rms_norm.default runs.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "kernels/registry.hpp"
#include "tests/cpu/kernels/described_h100.hpp"

namespace normbench {
namespace {

ProblemShape channels_of(int64_t channels, DType dtype = DType::float32, bool affine = false,
                         DType params = DType::float32) {
  return make_problem_shape(Op::channel_rms_norm, {2, channels, 7, 9}, {}, 0, 1e-5, 1.0, affine,
                            {dtype, params});
}

KernelPlan plan_of(const std::string& id, const ProblemShape& p) {
  return plan_kernel(*find_kernel(id), p, testing::described_h100());
}

TEST(ChannelKernels, EveryVariantTakesEveryFormatUpToItsChannelLimit) {
  for (const char* id : {"channel_rms_norm.naive", "channel_rms_norm.column_in_registers",
                         "channel_rms_norm.default"})
    for (DType dtype : kAllDTypes)
      for (DType params : {dtype, DType::float32})
        for (bool affine : {true, false}) {
          const KernelPlan plan = plan_of(id, channels_of(128, dtype, affine, params));
          EXPECT_EQ(plan.unsupported, std::nullopt)
              << id << " " << dtype_name(dtype) << " params " << dtype_name(params)
              << (affine ? " weight" : " no weight");
          EXPECT_TRUE(plan.launch) << id;
        }
}

TEST(ChannelKernels, ColumnInRegistersDeclinesMoreThan128Channels) {
  const KernelPlan plan = plan_of("channel_rms_norm.column_in_registers", channels_of(129));
  ASSERT_TRUE(plan.unsupported);
  EXPECT_EQ(*plan.unsupported, "more than 128 channels: a column of channels is held in registers");
  EXPECT_EQ(plan_of("channel_rms_norm.naive", channels_of(100000)).unsupported, std::nullopt);
}

TEST(ChannelKernels, DefaultHoldsColumnsInRegistersAndFallsBackToTheBaseline) {
  for (int64_t channels : {1, 3, 16, 17, 64, 128})
    EXPECT_EQ(plan_of("channel_rms_norm.default", channels_of(channels)).dispatches_to,
              "channel_rms_norm.column_in_registers")
        << channels;
  EXPECT_EQ(plan_of("channel_rms_norm.default", channels_of(129, DType::bfloat16)).dispatches_to,
            "channel_rms_norm.naive");
}

TEST(ChannelKernels, OtherOpsKernelsDeclineIt) {
  const KernelPlan plan = plan_of("rms_norm.naive", channels_of(64));
  ASSERT_TRUE(plan.unsupported);
  EXPECT_EQ(*plan.unsupported, "kernel is for op rms_norm");
}

}  // namespace
}  // namespace normbench
