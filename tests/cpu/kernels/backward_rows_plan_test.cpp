// The backward row kernels on a described H100 (no GPU needed): how
// `<op>_backward.row_in_registers` lays rows over a block and sizes its grid and workspace, what
// it declines and why, and that each `<op>_backward.default` picks it for the rows of
// configs/training.json.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "app/config/config.hpp"
#include "kernels/families/wide_rows_backward_plan.hpp"
#include "kernels/registry.hpp"
#include "tests/cpu/kernels/described_h100.hpp"

namespace normbench {
namespace {

ProblemShape backward_rows(Op op, int64_t rows, int64_t row, DType dtype, DType param_dtype,
                           bool affine = true, bool bias = true) {
  return make_problem_shape(op, {rows, row}, {row}, 0, 1e-5, 1.0, affine,
                            ProblemFormat{dtype, param_dtype, Layout::nchw, bias});
}

KernelPlan plan_of(const std::string& id, const ProblemShape& p) {
  const KernelVariant* v = find_kernel(id);
  if (!v) return KernelPlan::declined("(no kernel " + id + ")");
  return plan_kernel(*v, p, testing::described_h100());
}

TEST(WideRowsBackwardPlan, SixteenColumnsAThreadAndAGridOfFourBlocksAnSm) {
  struct Case {
    DType dtype;
    int64_t row;
    int vectors, per_thread, threads;
  };
  const Case cases[] = {
      {DType::bfloat16, 4096, 512, 2, 256}, {DType::bfloat16, 8192, 1024, 2, 512},
      {DType::float16, 5120, 640, 2, 320},  {DType::float32, 4096, 1024, 4, 256},
      {DType::float32, 8192, 2048, 4, 512}, {DType::bfloat16, 1000, 125, 2, 64},
  };
  for (const Case& c : cases) {
    const ProblemShape p = backward_rows(Op::layer_norm_backward, 32768, c.row, c.dtype, c.dtype);
    const auto plan = kernels::plan_wide_rows_backward(p, 132);
    const std::string what = std::string(dtype_name(c.dtype)) + " " + std::to_string(c.row);
    ASSERT_EQ(plan.unsupported, "") << what;
    EXPECT_EQ(plan.row_vectors, c.vectors) << what;
    EXPECT_EQ(plan.vectors_per_thread, c.per_thread) << what;
    EXPECT_EQ(plan.threads, c.threads) << what;
    EXPECT_EQ(plan.max_blocks, 4 * 132) << what;
    // dweight and dbias partials, a float per column per block.
    EXPECT_EQ(plan.workspace_bytes, size_t{2} * 4 * 132 * static_cast<size_t>(c.row) * 4) << what;
  }
}

TEST(WideRowsBackwardPlan, WorkspaceHoldsOnlyThePartialsThatAreOutputs) {
  const int64_t rows = 16384, row = 8192;
  const auto rms = kernels::plan_wide_rows_backward(
      backward_rows(Op::rms_norm_backward, rows, row, DType::bfloat16, DType::bfloat16), 132);
  EXPECT_EQ(rms.workspace_bytes, size_t{528} * row * 4);  // dweight alone
  const auto add_rms = kernels::plan_wide_rows_backward(
      backward_rows(Op::add_rms_norm_backward, rows, row, DType::bfloat16, DType::bfloat16), 132);
  EXPECT_EQ(add_rms.workspace_bytes, size_t{528} * row * 4);  // ds_out adds none
  const auto no_bias =
      kernels::plan_wide_rows_backward(backward_rows(Op::layer_norm_backward, rows, row,
                                                     DType::float16, DType::float16, true, false),
                                       132);
  EXPECT_EQ(no_bias.workspace_bytes, size_t{528} * row * 4);
  const auto no_weight = kernels::plan_wide_rows_backward(
      backward_rows(Op::layer_norm_backward, rows, row, DType::float16, DType::float16, false),
      132);
  EXPECT_EQ(no_weight.workspace_bytes, 0u);
  // Fewer rows than blocks: a block per row, and no more partials.
  const auto few = kernels::plan_wide_rows_backward(
      backward_rows(Op::layer_norm_backward, 6, 1024, DType::bfloat16, DType::bfloat16), 132);
  EXPECT_EQ(few.max_blocks, 6);
  EXPECT_EQ(few.workspace_bytes, size_t{2} * 6 * 1024 * 4);
  // The registry hands the kernel the workspace its plan asks for.
  const ProblemShape p =
      backward_rows(Op::layer_norm_backward, 32768, 4096, DType::bfloat16, DType::bfloat16);
  EXPECT_EQ(plan_of("layer_norm_backward.row_in_registers", p).workspace_bytes,
            size_t{2} * 528 * 4096 * 4);
}

TEST(WideRowsBackwardPlan, DeclinesRowsItCannotHoldWithTheReason) {
  const auto odd =
      plan_of("layer_norm_backward.row_in_registers",
              backward_rows(Op::layer_norm_backward, 8, 777, DType::float16, DType::float32));
  ASSERT_TRUE(odd.unsupported);
  EXPECT_EQ(*odd.unsupported,
            "row of 777 elements is not a multiple of the 8 float16 of a 16-byte vector");
  const auto long_row =
      plan_of("rms_norm_backward.row_in_registers",
              backward_rows(Op::rms_norm_backward, 8, 16384, DType::bfloat16, DType::bfloat16));
  ASSERT_TRUE(long_row.unsupported);
  EXPECT_EQ(*long_row.unsupported,
            "row of 16384 elements does not fit in registers: at most 8192 (512 threads x 16 "
            "columns of x and dy)");
  const auto odd_float =
      plan_of("rms_norm_backward.row_in_registers",
              backward_rows(Op::rms_norm_backward, 7, 333, DType::float32, DType::float32));
  ASSERT_TRUE(odd_float.unsupported);
  const auto add_odd =
      plan_of("add_rms_norm_backward.row_in_registers",
              backward_rows(Op::add_rms_norm_backward, 5, 77, DType::bfloat16, DType::bfloat16));
  ASSERT_TRUE(add_odd.unsupported);
  EXPECT_EQ(*add_odd.unsupported,
            "row of 77 elements is not a multiple of the 8 bfloat16 of a 16-byte vector");
  // The default falls through to the baseline on all of them.
  for (const ProblemShape& p :
       {backward_rows(Op::layer_norm_backward, 8, 777, DType::float16, DType::float32),
        backward_rows(Op::rms_norm_backward, 8, 16384, DType::bfloat16, DType::bfloat16),
        backward_rows(Op::rms_norm_backward, 7, 333, DType::float32, DType::float32),
        backward_rows(Op::add_rms_norm_backward, 5, 77, DType::bfloat16, DType::bfloat16),
        backward_rows(Op::add_rms_norm_backward, 4, 16384, DType::float16, DType::float32)}) {
    const std::string op(op_name(p.op));
    EXPECT_EQ(plan_of(op + ".default", p).dispatches_to, op + ".naive") << p.segment_size;
  }
}

TEST(WideRowsBackwardPlan, TakesEveryFormatOfWholeVectorRows) {
  for (Op op : {Op::layer_norm_backward, Op::rms_norm_backward, Op::add_rms_norm_backward})
    for (DType dtype : kAllDTypes)
      for (DType params : {dtype, DType::float32})
        for (bool affine : {true, false})
          for (bool bias : {true, false}) {
            const ProblemShape p = backward_rows(op, 64, 1024, dtype, params, affine, bias);
            const std::string what = std::string(op_name(op)) + " " +
                                     std::string(dtype_name(dtype)) + "/" +
                                     std::string(dtype_name(params)) +
                                     (affine ? "" : " no weight") + (bias ? "" : " no bias");
            const KernelPlan plan = plan_of(std::string(op_name(op)) + ".row_in_registers", p);
            EXPECT_EQ(plan.unsupported, std::nullopt) << what;
            EXPECT_TRUE(plan.launch) << what;
          }
}

TEST(WideRowsBackwardPlan, DefaultsPickItForEveryRowOfTrainingJson) {
  const RunConfig training =
      load_config_file(std::string(NORMBENCH_SOURCE_DIR) + "/configs/training.json");
  int rows = 0;
  for (const ProblemConfig& problem : training.problems) {
    const ProblemShape& p = problem.shape;
    ASSERT_TRUE(p.is_backward()) << problem.id;
    const std::string op(op_name(p.op));
    const KernelPlan plan = plan_of(op + ".default", p);
    ASSERT_EQ(plan.unsupported, std::nullopt) << problem.id;
    if (p.grouped()) {
      EXPECT_EQ(plan.dispatches_to, op + ".channel_sums") << problem.id;
      EXPECT_GT(plan.workspace_bytes, 0u) << problem.id;
      continue;
    }
    ++rows;
    EXPECT_EQ(plan.dispatches_to, op + ".row_in_registers") << problem.id;
    EXPECT_GT(plan.workspace_bytes, 0u) << problem.id;
  }
  EXPECT_EQ(rows, 6);
}

}  // namespace
}  // namespace normbench
