// group_norm_backward.channel_sums's plan on a described H100 (no GPU needed): which shapes it
// takes (rows of 16-byte vectors in either layout), the reasons it declines the others, and the
// workspace its partial sums need.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/registry.hpp"
#include "tests/cpu/kernels/described_h100.hpp"

namespace normbench {
namespace {

ProblemShape backward(std::vector<int64_t> shape, int64_t groups, DType dtype, Layout layout) {
  const ProblemFormat format{dtype, dtype, layout, true};
  return make_problem_shape(Op::group_norm_backward, std::move(shape), {}, groups, 1e-5, 1.0, true,
                            format);
}

KernelPlan channel_sums(const ProblemShape& p) {
  return plan_kernel(*find_kernel("group_norm_backward.channel_sums"), p,
                     testing::described_h100());
}

TEST(GroupNormBackwardPlan, TakesTheDiffusionShapesInBothLayouts) {
  for (Layout layout : {Layout::nchw, Layout::nhwc})
    for (DType dtype : kAllDTypes)
      for (const auto& shape : std::vector<std::vector<int64_t>>{
               {8, 512, 64, 64}, {2, 320, 64, 64}, {2, 1280, 16, 16}, {1, 128, 512, 512}}) {
        const KernelPlan plan = channel_sums(backward(shape, 32, dtype, layout));
        // A channels-last row of more 16-byte vectors than a block has threads is declined.
        if (layout == Layout::nhwc && shape[1] * dtype_bytes(dtype) / 16 > 256) {
          EXPECT_TRUE(plan.unsupported) << shape[1] << " " << dtype_name(dtype);
          continue;
        }
        EXPECT_EQ(plan.unsupported, std::nullopt) << shape[1] << " " << dtype_name(dtype);
        // At least the per-channel coefficients and sums of every sample.
        EXPECT_GE(plan.workspace_bytes, size_t(shape[0] * shape[1] * (16 + 8)));
      }
}

TEST(GroupNormBackwardPlan, DeclinesRowsThatAreNotSixteenByteVectors) {
  // 6 float16 channels: 12-byte channels-last rows; 5 x 7 float32 positions: 140-byte channels.
  EXPECT_TRUE(channel_sums(backward({2, 6, 5, 7}, 3, DType::float16, Layout::nhwc)).unsupported);
  EXPECT_TRUE(channel_sums(backward({2, 6, 5, 7}, 3, DType::float32, Layout::nchw)).unsupported);
  // 4096 bfloat16 channels: 512 vectors a row, more than a block's threads.
  EXPECT_TRUE(
      channel_sums(backward({1, 4096, 2, 2}, 32, DType::bfloat16, Layout::nhwc)).unsupported);
  const KernelPlan fallback = plan_kernel(*find_kernel("group_norm_backward.default"),
                                          backward({2, 6, 5, 7}, 3, DType::float16, Layout::nhwc),
                                          testing::described_h100());
  EXPECT_EQ(fallback.dispatches_to, "group_norm_backward.naive");
}

}  // namespace
}  // namespace normbench
