// The float64 gradients of add_rms_norm_backward: central differences of add_rms_norm's forward
// reference (s = x + residual, y = rms_norm(s) weight, both outputs), which never sees the
// backward formulas, with respect to x, to residual and to the weight; and, from the backward
// side, rms_norm_backward's gradients of s with ds_out added to dx and nothing else changed.
#include <gtest/gtest.h>

#include <algorithm>
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

struct Forward {
  std::vector<float> x, residual, w;
};

struct Gradients {
  std::vector<float> dy, ds_out;
};

// L = sum dy y + sum ds_out s over add_rms_norm's two outputs: its gradient with respect to x
// (and to residual) is add_rms_norm_backward's dx, with respect to the weight its dweight.
double loss(const ProblemShape& forward, const Forward& f, const Gradients& g) {
  const NormalizationReference ref(
      forward, {f.x.data(), f.residual.data(), f.w.empty() ? nullptr : f.w.data(), nullptr}, 1);
  const std::vector<double> y = expected_all(ref, Output::y);
  const std::vector<double> s = expected_all(ref, Output::sum);
  double l = 0.0;
  for (size_t i = 0; i < y.size(); ++i)
    l += static_cast<double>(g.dy[i]) * y[i] + static_cast<double>(g.ds_out[i]) * s[i];
  return l;
}

// dL/dv[i] by central differences at h and h/2, combined (Richardson): error O(h^4).
double derivative(const ProblemShape& forward, Forward f, std::vector<float> Forward::*which,
                  size_t i, const Gradients& g) {
  auto central = [&](float h) {
    const float v = (f.*which)[i];
    (f.*which)[i] = v + h;
    const double up = loss(forward, f, g);
    (f.*which)[i] = v - h;
    const double down = loss(forward, f, g);
    (f.*which)[i] = v;
    return (up - down) / (2.0 * static_cast<double>(h));
  };
  return (4.0 * central(0x1p-11f) - central(0x1p-10f)) / 3.0;
}

ProblemShape shape_of(Op op, bool affine) {
  return make_problem_shape(op, {3, 7}, {7}, 0, 1e-6, 1.0, affine);
}

void expect_matches_differences(bool affine) {
  const ProblemShape backward = shape_of(Op::add_rms_norm_backward, affine);
  const ProblemShape forward = shape_of(Op::add_rms_norm, affine);
  const int64_t n = backward.num_elements;
  Forward f{sixteenths(n, 1), sixteenths(n, 5), {}};
  if (affine) f.w = sixteenths(backward.param_size, 3);
  const Gradients g{sixteenths(n, 2), sixteenths(n, 4)};
  std::vector<float> s(static_cast<size_t>(n));
  for (size_t i = 0; i < s.size(); ++i) s[i] = f.x[i] + f.residual[i];
  // The backward op's x is the sum s its forward wrote.
  const NormalizationReference ref(backward,
                                   {s.data(), nullptr, f.w.empty() ? nullptr : f.w.data(), nullptr,
                                    g.dy.data(), g.ds_out.data()},
                                   1);
  const std::vector<double> dx = expected_all(ref, Output::dx);
  for (size_t i = 0; i < dx.size(); ++i) {
    const double tolerance = 1e-9 * (1 + std::fabs(dx[i]));
    EXPECT_NEAR(dx[i], derivative(forward, f, &Forward::x, i, g), tolerance) << "dx[" << i << "]";
    EXPECT_NEAR(dx[i], derivative(forward, f, &Forward::residual, i, g), tolerance)
        << "dresidual[" << i << "]";
  }
  if (!affine) return;
  const std::vector<double> dw = expected_all(ref, Output::grad_weight);
  for (size_t j = 0; j < dw.size(); ++j)
    EXPECT_NEAR(dw[j], derivative(forward, f, &Forward::w, j, g), 1e-9 * (1 + std::fabs(dw[j])))
        << "dweight[" << j << "]";
}

TEST(AddRmsNormBackwardReference, GradientsAreTheForwardsDerivativesForXAndResidual) {
  expect_matches_differences(true);
  expect_matches_differences(false);
}

TEST(AddRmsNormBackwardReference, IsRmsNormsBackwardOfSWithDsOutAddedToDx) {
  const ProblemShape add =
      make_problem_shape(Op::add_rms_norm_backward, {5, 24}, {24}, 0, 1e-5, 1.0, true);
  ProblemShape rms = add;
  rms.op = Op::rms_norm_backward;
  const std::vector<float> s = sixteenths(add.num_elements, 1);
  const std::vector<float> dy = sixteenths(add.num_elements, 2);
  const std::vector<float> ds_out = sixteenths(add.num_elements, 6);
  const std::vector<float> w = sixteenths(add.param_size, 3);
  const NormalizationReference with(
      add, {s.data(), nullptr, w.data(), nullptr, dy.data(), ds_out.data()}, 1);
  const NormalizationReference without(rms, {s.data(), nullptr, w.data(), nullptr, dy.data()}, 1);
  const std::vector<double> dx = expected_all(with, Output::dx);
  const std::vector<double> rms_dx = expected_all(without, Output::dx);
  double largest_ds_out = 0.0;
  for (size_t i = 0; i < dx.size(); ++i) {
    EXPECT_NEAR(dx[i], rms_dx[i] + ds_out[i], 1e-14) << "dx[" << i << "]";
    largest_ds_out = std::max(largest_ds_out, std::fabs(static_cast<double>(ds_out[i])));
  }
  EXPECT_GT(largest_ds_out, 1.0);  // ds_out is no zero that any dx would match
  // dweight and the magnitudes its tolerance scales with do not depend on ds_out.
  EXPECT_EQ(expected_all(with, Output::grad_weight), expected_all(without, Output::grad_weight));
  EXPECT_EQ(magnitudes_all(with, Output::grad_weight),
            magnitudes_all(without, Output::grad_weight));
  EXPECT_EQ(problem_outputs(add), (std::vector<Output>{Output::dx, Output::grad_weight}));
}

}  // namespace
}  // namespace normbench
