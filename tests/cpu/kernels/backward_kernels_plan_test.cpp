// Planning of the backward kernels without a GPU: the baselines take every format, each
// <op>_backward.default runs a variant of its own op (row_in_registers for the rows it holds), and
// a forward variant never takes a backward problem (its KernelArgs would have no y to write).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "kernels/registry.hpp"
#include "tests/cpu/kernels/described_h100.hpp"

namespace normbench {
namespace {

ProblemShape backward_of(Op op, const ProblemFormat& format) {
  if (is_grouped(op)) return make_problem_shape(op, {2, 12, 5, 7}, {}, 3, 1e-5, 1.0, true, format);
  return make_problem_shape(op, {6, 1000}, {1000}, 0, 1e-5, 1.0, true, format);
}

TEST(BackwardKernels, BaselinesAndDefaultsTakeEveryFormat) {
  for (Op op : {Op::layer_norm_backward, Op::rms_norm_backward, Op::group_norm_backward,
                Op::add_rms_norm_backward})
    for (DType dtype : kAllDTypes)
      for (DType params : {dtype, DType::float32})
        for (Layout layout : {Layout::nchw, Layout::nhwc})
          for (bool bias : {true, false}) {
            const ProblemShape p = backward_of(op, {dtype, params, layout, bias});
            const std::string what = std::string(op_name(op)) + " " +
                                     std::string(dtype_name(dtype)) + "/" +
                                     std::string(dtype_name(params)) + " " +
                                     std::string(layout_name(p.layout)) + (bias ? "" : " no bias");
            for (const char* variant : {".naive", ".default"}) {
              const KernelVariant* k = find_kernel(std::string(op_name(op)) + variant);
              ASSERT_NE(k, nullptr) << what << variant;
              const KernelPlan plan = plan_kernel(*k, p, testing::described_h100());
              EXPECT_EQ(plan.unsupported, std::nullopt) << what << variant;
              EXPECT_TRUE(plan.launch) << what << variant;
            }
            const KernelPlan chosen = plan_kernel(
                *find_kernel(std::string(op_name(op)) + ".default"), p, testing::described_h100());
            // Rows of 1000 are whole 16-byte vectors of every type: row_in_registers takes
            // them (backward_rows_plan_test.cpp). GroupNorm's channel_sums needs 16-byte rows:
            // 12 channels are that in float32 channels-last only (5 x 7 positions never).
            const bool vector_rows = p.channels_last() && dtype == DType::float32;
            const char* fastest = !is_grouped(op) ? ".row_in_registers"
                                  : vector_rows   ? ".channel_sums"
                                                  : ".naive";
            EXPECT_EQ(chosen.dispatches_to, std::string(op_name(op)) + fastest) << what;
          }
}

TEST(BackwardKernels, ForwardVariantsDeclineBackwardProblems) {
  const ProblemShape p = backward_of(Op::layer_norm_backward, {});
  const auto why = declined_format(*find_kernel("layer_norm.naive"), p);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "kernel is for op layer_norm");
}

}  // namespace
}  // namespace normbench
