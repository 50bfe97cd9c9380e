// The float64 gradients of the backward ops: hand-computed cases, the invariants the formulas
// imply, and central differences of the forward reference (an independent check: it never
// sees the backward formulas), for LayerNorm, RMSNorm and GroupNorm; and the same sums for any
// thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference/normalization_reference.hpp"
#include "tests/cpu/check/exact_inputs.hpp"
#include "tests/cpu/check/expected_outputs.hpp"

namespace normbench {
namespace {

using testing::expected_all;
using testing::magnitudes_all;
using testing::sixteenths;

struct Tensors {
  std::vector<float> x, dy, w, b;
};

// L = sum dy * y over the forward op's y: its gradients are what the backward op computes.
double loss(const ProblemShape& backward, const Tensors& t) {
  ProblemShape forward = backward;
  forward.op = backward.forward_op();
  const NormalizationReference ref(
      forward,
      {t.x.data(), nullptr, t.w.empty() ? nullptr : t.w.data(), t.b.empty() ? nullptr : t.b.data()},
      1);
  const std::vector<double> y = expected_all(ref, Output::y);
  double l = 0.0;
  for (size_t i = 0; i < y.size(); ++i) l += static_cast<double>(t.dy[i]) * y[i];
  return l;
}

// dL/dv[i] by central differences at h and h/2, combined (Richardson) so that the error is
// O(h^4): about 1e-12 here.
double derivative(const ProblemShape& p, Tensors t, std::vector<float> Tensors::*which, size_t i) {
  auto central = [&](float h) {
    const float v = (t.*which)[i];
    (t.*which)[i] = v + h;
    const double up = loss(p, t);
    (t.*which)[i] = v - h;
    const double down = loss(p, t);
    (t.*which)[i] = v;
    return (up - down) / (2.0 * static_cast<double>(h));
  };
  return (4.0 * central(0x1p-11f) - central(0x1p-10f)) / 3.0;
}

ReferenceInputs inputs_of(const Tensors& t) {
  return {t.x.data(), nullptr, t.w.empty() ? nullptr : t.w.data(), nullptr, t.dy.data()};
}

// Every gradient of the backward reference against the differences of the forward one.
void expect_matches_differences(const ProblemShape& p, const Tensors& t) {
  const NormalizationReference ref(p, inputs_of(t), 1);
  const std::vector<double> dx = expected_all(ref, Output::dx);
  for (size_t i = 0; i < t.x.size(); ++i)
    EXPECT_NEAR(dx[i], derivative(p, t, &Tensors::x, i), 1e-9 * (1 + std::fabs(dx[i])))
        << "dx[" << i << "]";
  if (!p.affine) return;
  const std::vector<double> dw = expected_all(ref, Output::grad_weight);
  for (size_t j = 0; j < t.w.size(); ++j)
    EXPECT_NEAR(dw[j], derivative(p, t, &Tensors::w, j), 1e-9 * (1 + std::fabs(dw[j])))
        << "dweight[" << j << "]";
  if (!p.has_bias) return;
  const std::vector<double> db = expected_all(ref, Output::grad_bias);
  for (size_t j = 0; j < t.b.size(); ++j)
    EXPECT_NEAR(db[j], derivative(p, t, &Tensors::b, j), 1e-9 * (1 + std::fabs(db[j])))
        << "dbias[" << j << "]";
}

Tensors tensors_for(const ProblemShape& p) {
  Tensors t{sixteenths(p.num_elements, 1), sixteenths(p.num_elements, 2), {}, {}};
  if (p.affine) t.w = sixteenths(p.param_size, 3);
  if (p.has_bias) t.b = sixteenths(p.param_size, 4);
  return t;
}

TEST(BackwardReference, LayerNormGradientsAreTheForwardsDerivatives) {
  const ProblemShape p =
      make_problem_shape(Op::layer_norm_backward, {3, 8}, {8}, 0, 1e-5, 1.0, true);
  expect_matches_differences(p, tensors_for(p));
}

TEST(BackwardReference, RmsNormGradientsAreTheForwardsDerivatives) {
  const ProblemShape p = make_problem_shape(Op::rms_norm_backward, {2, 5}, {5}, 0, 1e-6, 1.0, true);
  EXPECT_FALSE(p.has_bias);
  expect_matches_differences(p, tensors_for(p));
  const ProblemShape plain =
      make_problem_shape(Op::rms_norm_backward, {2, 5}, {5}, 0, 1e-6, 1.0, false);
  expect_matches_differences(plain, tensors_for(plain));
}

TEST(BackwardReference, GroupNormGradientsAreTheForwardsDerivatives) {
  // 6 channels in 3 groups over 3 positions: dweight and dbias sum over samples and positions.
  const ProblemShape p =
      make_problem_shape(Op::group_norm_backward, {2, 6, 3}, {}, 3, 1e-5, 1.0, true);
  expect_matches_differences(p, tensors_for(p));
  // The reference is in the logical order: a channels-last problem has the same gradients.
  const ProblemShape nhwc =
      make_problem_shape(Op::group_norm_backward, {2, 6, 3}, {}, 3, 1e-5, 1.0, true,
                         {DType::float16, DType::float32, Layout::nhwc});
  expect_matches_differences(nhwc, tensors_for(nhwc));
}

TEST(BackwardReference, WeightWithoutBiasHasNoBiasGradient) {
  const ProblemShape p =
      make_problem_shape(Op::layer_norm_backward, {2, 4}, {4}, 0, 1e-5, 1.0, true,
                         {DType::float32, DType::float32, Layout::nchw, false});
  EXPECT_EQ(problem_outputs(p), (std::vector<Output>{Output::dx, Output::grad_weight}));
  expect_matches_differences(p, tensors_for(p));
}

// With n = 2 and eps = 0, xhat is -1 and +1 whatever x is, so y does not move with x: dx = 0,
// dweight sums -dy and +dy, and dbias sums dy.
TEST(BackwardReference, TwoElementRowsByHand) {
  const ProblemShape p =
      make_problem_shape(Op::layer_norm_backward, {2, 2}, {2}, 0, 0.0, 1.0, true);
  const std::vector<float> x = {1.0f, 3.0f, 5.0f, -7.0f};  // the second row descends
  const std::vector<float> dy = {0.5f, -2.0f, 4.0f, 1.0f};
  const std::vector<float> w = {3.0f, -1.5f};
  const NormalizationReference ref(p, {x.data(), nullptr, w.data(), nullptr, dy.data()}, 1);
  for (double v : expected_all(ref, Output::dx)) EXPECT_NEAR(v, 0.0, 1e-15);
  // xhat: row 0 (-1, +1), row 1 (+1, -1).
  EXPECT_DOUBLE_EQ(expected_all(ref, Output::grad_weight)[0], -0.5 + 4.0);
  EXPECT_DOUBLE_EQ(expected_all(ref, Output::grad_weight)[1], -2.0 - 1.0);
  EXPECT_DOUBLE_EQ(expected_all(ref, Output::grad_bias)[0], 4.5);
  EXPECT_DOUBLE_EQ(expected_all(ref, Output::grad_bias)[1], -1.0);
  // The magnitudes the tolerance scales with: sum |dy * xhat| and sum |dy|.
  EXPECT_DOUBLE_EQ(magnitudes_all(ref, Output::grad_weight)[0], 4.5);
  EXPECT_DOUBLE_EQ(magnitudes_all(ref, Output::grad_weight)[1], 3.0);
  EXPECT_DOUBLE_EQ(magnitudes_all(ref, Output::grad_bias)[1], 3.0);
}

// dx = rstd (g - mean(g) - xhat mean(g xhat)) sums to 0 over a row (xhat does), and with eps = 0
// is orthogonal to xhat (mean(xhat^2) = 1); RMSNorm's dx is orthogonal to x.
TEST(BackwardReference, RowGradientsKeepTheirInvariants) {
  const ProblemShape ln =
      make_problem_shape(Op::layer_norm_backward, {4, 9}, {9}, 0, 0.0, 1.0, true);
  const Tensors t = tensors_for(ln);
  const NormalizationReference ref(ln, inputs_of(t), 1);
  const std::vector<double> dx = expected_all(ref, Output::dx);
  for (int64_t r = 0; r < 4; ++r) {
    double sum = 0.0, dot = 0.0, scale = 0.0;
    for (int64_t i = r * 9; i < (r + 1) * 9; ++i) {
      const double xhat = (t.x[static_cast<size_t>(i)] - ref.mean(r)) * ref.rstd(r);
      sum += dx[static_cast<size_t>(i)];
      dot += dx[static_cast<size_t>(i)] * xhat;
      scale += std::fabs(dx[static_cast<size_t>(i)]);
    }
    EXPECT_GT(scale, 0.1) << "row " << r;  // not trivially zero
    EXPECT_NEAR(sum, 0.0, 1e-13 * scale) << "row " << r;
    EXPECT_NEAR(dot, 0.0, 1e-13 * scale) << "row " << r;
  }
  const ProblemShape rms =
      make_problem_shape(Op::rms_norm_backward, {4, 9}, {9}, 0, 0.0, 1.0, true);
  const NormalizationReference rms_ref(rms, inputs_of(t), 1);
  const std::vector<double> rms_dx = expected_all(rms_ref, Output::dx);
  for (int64_t r = 0; r < 4; ++r) {
    double dot = 0.0, scale = 0.0;
    for (int64_t i = r * 9; i < (r + 1) * 9; ++i) {
      dot += rms_dx[static_cast<size_t>(i)] * t.x[static_cast<size_t>(i)];
      scale += std::fabs(rms_dx[static_cast<size_t>(i)] * t.x[static_cast<size_t>(i)]);
    }
    EXPECT_NEAR(dot, 0.0, 1e-13 * scale) << "row " << r;
  }
}

// Many segments and more columns than one work item covers: the parallel pieces are summed in
// a fixed order, so every bit is the same for any thread count.
TEST(BackwardReference, SameSumsForAnyThreadCount) {
  for (const ProblemShape& p :
       {make_problem_shape(Op::layer_norm_backward, {700, 3000}, {3000}, 0, 1e-5, 1.0, true),
        make_problem_shape(Op::group_norm_backward, {3, 40, 70000}, {}, 8, 1e-5, 1.0, true)}) {
    const Tensors t = tensors_for(p);
    const NormalizationReference one(p, inputs_of(t), 1);
    const NormalizationReference three(p, inputs_of(t), 3);
    for (Output output : problem_outputs(p))
      EXPECT_EQ(expected_all(one, output), expected_all(three, output)) << output_name(output);
    EXPECT_EQ(magnitudes_all(one, Output::grad_weight), magnitudes_all(three, Output::grad_weight));
  }
}

}  // namespace
}  // namespace normbench
