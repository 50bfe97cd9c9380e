// A backward op's inputs: dy (and add_rms_norm_backward's ds_out) drawn like x but their own
// values, and the saved statistics, the exact mean and rstd of x rounded once to float32; the
// bytes the op moves and the shared slots of its tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app/inputs/inputs.hpp"
#include "app/worker/shared_tensors.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

ProblemConfig one(const std::string& problem) {
  return testing::first_problem(R"({"name": "t", "problems": [)" + problem + "]}", "t.json");
}

// Two-pass mean and biased variance of `n` contiguous values, in long double.
void statistics_of(const float* x, int64_t n, double eps, bool centered, float& mean, float& rstd) {
  long double sum = 0, squares = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  const long double m = centered ? sum / n : 0;
  for (int64_t i = 0; i < n; ++i) squares += (x[i] - m) * (x[i] - m);
  mean = static_cast<float>(m);
  rstd = static_cast<float>(1.0L / std::sqrt(squares / n + eps));
}

TEST(BackwardInputs, SavedStatisticsAreTheExactOnesRoundedOnce) {
  // add_rms_norm_backward's x is the sum s: its statistics are rms_norm's of it.
  for (const char* op : {"layer_norm_backward", "rms_norm_backward", "add_rms_norm_backward"}) {
    const ProblemConfig p = one(std::string(R"({"id": "a", "op": ")") + op +
                                R"(", "shape": [5, 300], "normalized_shape": [300], "dtype":
                                "bfloat16", "inputs": {"x": {"dist": "normal", "mean": 3}}})");
    const ProblemInputs in = make_inputs(p, 11, 2);
    const bool centered = p.shape.centered();
    EXPECT_EQ(in.mean.size, centered ? 5 : 0) << op;
    ASSERT_EQ(in.rstd.shape, (std::vector<int64_t>{5})) << op;
    for (int64_t r = 0; r < 5; ++r) {
      float mean = 0, rstd = 0;
      statistics_of(in.x.begin() + r * 300, 300, p.shape.eps, centered, mean, rstd);
      if (centered) {
        EXPECT_EQ(in.mean.begin()[r], mean) << op << " row " << r;
      }
      EXPECT_EQ(in.rstd.begin()[r], rstd) << op << " row " << r;
    }
  }
}

TEST(BackwardInputs, GroupStatisticsAreInSampleGroupOrder) {
  const ProblemConfig p = one(R"({"id": "g", "op": "group_norm_backward", "shape": [2, 6, 7],
                                  "groups": 3, "layout": "nhwc", "inputs": {"x": "normal"}})");
  const ProblemInputs in = make_inputs(p, 3, 1);
  ASSERT_EQ(in.mean.shape, (std::vector<int64_t>{2, 3}));
  // Inputs are in the logical order whatever the layout: group g of sample n is contiguous.
  for (int64_t s = 0; s < 6; ++s) {
    float mean = 0, rstd = 0;
    statistics_of(in.x.begin() + s * 14, 14, p.shape.eps, true, mean, rstd);
    EXPECT_EQ(in.mean.begin()[s], mean) << s;
    EXPECT_EQ(in.rstd.begin()[s], rstd) << s;
  }
}

TEST(BackwardInputs, DyIsItsOwnDraw) {
  const ProblemConfig p = one(R"({"id": "a", "op": "layer_norm_backward", "shape": [4, 64],
                                  "normalized_shape": [64], "dtype": "float16"})");
  const ProblemInputs in = make_inputs(p, 5, 1);
  ASSERT_EQ(in.dy.shape, in.x.shape);
  int same = 0;
  for (int64_t i = 0; i < in.x.size; ++i) {
    same += in.dy.begin()[i] == in.x.begin()[i];
    EXPECT_GE(in.dy.begin()[i], 0.0f);  // like x: uniform [0, 1)
    EXPECT_LT(in.dy.begin()[i], 1.0f);
  }
  EXPECT_LT(same, 8);
  EXPECT_EQ(in.bias.size, 0);    // no gradient depends on the bias: it is not made
  EXPECT_EQ(in.ds_out.size, 0);  // add_rms_norm_backward's only
}

TEST(BackwardInputs, DsOutIsADrawOfItsOwnLikeX) {
  const ProblemConfig p = one(R"({"id": "a", "op": "add_rms_norm_backward", "shape": [4, 64],
                                  "normalized_shape": [64], "dtype": "bfloat16"})");
  const ProblemInputs in = make_inputs(p, 5, 1);
  ASSERT_EQ(in.ds_out.shape, in.x.shape);
  int same_as_x = 0, same_as_dy = 0;
  for (int64_t i = 0; i < in.x.size; ++i) {
    same_as_x += in.ds_out.begin()[i] == in.x.begin()[i];
    same_as_dy += in.ds_out.begin()[i] == in.dy.begin()[i];
    EXPECT_GE(in.ds_out.begin()[i], 0.0f);  // like x: uniform [0, 1)
    EXPECT_LT(in.ds_out.begin()[i], 1.0f);
  }
  EXPECT_LT(same_as_x, 8);
  EXPECT_LT(same_as_dy, 8);
}

TEST(BackwardInputs, BytesCountEachTensorOnce) {
  // x, dy, dx of (6, 10) float32; weight, dweight, dbias of 10; mean and rstd of 6.
  const ProblemShape ln =
      make_problem_shape(Op::layer_norm_backward, {6, 10}, {10}, 0, 1e-5, 1.0, true);
  EXPECT_EQ(ln.read_bytes(), 4 * (2 * 60 + 10 + 2 * 6));
  EXPECT_EQ(ln.write_bytes(), 4 * (60 + 2 * 10));
  // bfloat16 data, bfloat16 weight, no mean for RMSNorm, no bias.
  const ProblemShape rms = make_problem_shape(Op::rms_norm_backward, {6, 10}, {10}, 0, 1e-5, 1.0,
                                              true, {DType::bfloat16, DType::bfloat16});
  EXPECT_EQ(rms.read_bytes(), 2 * (2 * 60 + 10) + 4 * 6);
  EXPECT_EQ(rms.write_bytes(), 2 * (60 + 10));
  // add_rms_norm_backward: s (in x), dy and ds_out read, float32 weight; dx and dweight written.
  const ProblemShape add = make_problem_shape(Op::add_rms_norm_backward, {6, 10}, {10}, 0, 1e-5,
                                              1.0, true, {DType::float16, DType::float32});
  EXPECT_EQ(add.read_bytes(), 2 * (3 * 60) + 4 * 10 + 4 * 6);
  EXPECT_EQ(add.write_bytes(), 2 * 60 + 4 * 10);
  const ProblemShape plain =
      make_problem_shape(Op::add_rms_norm_backward, {6, 10}, {10}, 0, 1e-5, 1.0, false);
  EXPECT_EQ(plain.read_bytes(), 4 * (3 * 60 + 6));
  EXPECT_EQ(plain.write_bytes(), 4 * 60);
}

TEST(BackwardInputs, SharedSlotsHoldEveryTensorInItsFormat) {
  const ProblemShape gn = make_problem_shape(Op::group_norm_backward, {2, 8, 5}, {}, 4, 1e-5, 1.0,
                                             true, {DType::float16, DType::float32, Layout::nhwc});
  const SharedLayout l = shared_layout(gn);
  EXPECT_EQ(l.input(Input::x).bytes, 160u);
  EXPECT_EQ(l.input(Input::dy).bytes, 160u);
  EXPECT_EQ(l.input(Input::weight).bytes, 32u);
  EXPECT_EQ(l.input(Input::bias).bytes, 0u);
  EXPECT_EQ(l.input(Input::mean).bytes, 32u);  // 2 x 4 float32
  EXPECT_EQ(l.fresh_input(Input::rstd).bytes, 32u);
  EXPECT_EQ(l.output(Output::y).bytes, 0u);
  EXPECT_EQ(l.output(Output::dx).bytes, 160u);
  EXPECT_EQ(l.sample(Output::grad_weight).bytes, 32u);
  EXPECT_EQ(l.output(Output::grad_bias).bytes, 32u);
  EXPECT_TRUE(tensor_format(gn, TensorKind::data).channels_last);
  EXPECT_FALSE(tensor_format(gn, TensorKind::statistics).channels_last);
  EXPECT_EQ(l.input(Input::ds_out).bytes, 0u);

  const ProblemShape add = make_problem_shape(Op::add_rms_norm_backward, {3, 16}, {16}, 0, 1e-5,
                                              1.0, true, {DType::bfloat16, DType::bfloat16});
  const SharedLayout a = shared_layout(add);
  EXPECT_EQ(a.input(Input::ds_out).bytes, 96u);
  EXPECT_EQ(a.fresh_input(Input::ds_out).bytes, 96u);  // swapped in with the other inputs
  EXPECT_EQ(a.input(Input::residual).bytes, 0u);       // the forward's; its gradient is dx
  EXPECT_EQ(a.input(Input::mean).bytes, 0u);
  EXPECT_EQ(a.output(Output::sum).bytes, 0u);
}

}  // namespace
}  // namespace normbench
