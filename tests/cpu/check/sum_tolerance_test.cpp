// The tolerance of the sum outputs (dweight, dbias): the allowance lambda sqrt(M) u32 S on top of
// the output dtype's rule, checked element by element and named in the message; and what it
// separates, on simulated kernels that use the saved float32 statistics as a kernel does:
// float32 accumulation in any order passes with room to spare, accumulation in bfloat16 fails.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "app/check/sum_tolerance.hpp"
#include "app/check/verify.hpp"
#include "app/inputs/inputs.hpp"
#include "reference/low_precision.hpp"
#include "tests/cpu/check/expected_outputs.hpp"

namespace normbench {
namespace {

using testing::expected_all;
using testing::magnitudes_all;

TEST(SumTolerance, AllowanceIsLambdaSqrtTermsUnitRoundoffMagnitude) {
  EXPECT_DOUBLE_EQ(sum_allowance(4096, 3.0), 8.0 * 64.0 * 0x1p-24 * 3.0);
  EXPECT_DOUBLE_EQ(sum_allowance(1, 1.0), 8.0 * 0x1p-24);
  EXPECT_EQ(sum_allowance(100, 0.0), 0.0);
}

struct Problem {
  RunConfig config;
  ProblemInputs inputs;
  std::unique_ptr<NormalizationReference> reference;

  explicit Problem(const std::string& problem)
      : config(parse_config(R"({"name": "t", "problems": [)" + problem + "]}", "test.json")) {
    inputs = make_inputs(shape_config(), 7, 2);
    reference = std::make_unique<NormalizationReference>(
        shape(),
        ReferenceInputs{inputs.x.begin(), nullptr, inputs.weight.begin(), nullptr,
                        inputs.dy.begin()},
        2);
  }
  const ProblemConfig& shape_config() const { return config.problems.at(0); }
  const ProblemShape& shape() const { return shape_config().shape; }
};

TEST(SumTolerance, EachElementMayUseItsAllowanceAndNoMore) {
  const Problem p(R"({"id": "a", "op": "layer_norm_backward", "shape": [64, 8],
                      "normalized_shape": [8], "inputs": {"x": "normal"}})");
  const Tolerance tol = p.shape_config().param_tolerance;
  const std::vector<double> ref = expected_all(*p.reference, Output::grad_weight);
  const std::vector<double> s = magnitudes_all(*p.reference, Output::grad_weight);
  auto with_error = [&](double share) {
    std::vector<float> out(ref.begin(), ref.end());
    const double allowed = tol.atol + tol.rtol * std::fabs(ref[3]) + sum_allowance(64, s[3]);
    out[3] = static_cast<float>(ref[3] + share * allowed);
    return verify_output(*p.reference, Output::grad_weight, out.data(), tol, 1);
  };
  // 10% either way: the float the error lands on is within 1% of it.
  const VerificationResult inside = with_error(0.9);
  EXPECT_TRUE(inside.passed);
  EXPECT_NEAR(inside.tensors.at(0).accuracy.tolerance_use, 0.9, 0.01);
  const VerificationResult outside = with_error(1.1);
  EXPECT_FALSE(outside.passed);
  EXPECT_EQ(outside.violations, 1);
  EXPECT_EQ(outside.first_mismatches.at(0).tensor, "dweight");
  EXPECT_EQ(outside.first_mismatches.at(0).coords, (std::vector<int64_t>{3}));
  EXPECT_EQ(violation_text(outside),
            "1 of 8 elements outside |dweight - ref| <= 1e-05 + 1e-05 * |ref| + 8 sqrt(M) u32 S "
            "(M = 64 terms, S = sum of their magnitudes)");
}

// dweight as a kernel computes it: the terms dy * ((x - mean) * rstd) in float32 from the saved
// float32 statistics, added up in `order`, each partial sum rounded to `accumulate`; the result
// rounded to the problem's param_dtype.
enum class Order { sequential, pairwise };

float add_up(std::vector<float> terms, Order order, DType accumulate) {
  auto add = [&](float a, float b) {
    return round_to_dtype(static_cast<double>(a + b), accumulate);
  };
  if (order == Order::sequential) {
    float sum = 0.0f;
    for (float t : terms) sum = add(sum, t);
    return sum;
  }
  for (size_t width = 1; width < terms.size(); width *= 2)
    for (size_t i = 0; i + width < terms.size(); i += 2 * width)
      terms[i] = add(terms[i], terms[i + width]);
  return terms[0];
}

VerificationResult simulated(const Problem& p, Output output, Order order, DType accumulate) {
  const ProblemShape& s = p.shape();
  const int64_t rows = s.num_segments, columns = s.param_size;
  const ProblemInputs& in = p.inputs;
  std::vector<float> out(static_cast<size_t>(columns));
  std::vector<float> terms(static_cast<size_t>(rows));
  for (int64_t j = 0; j < columns; ++j) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = r * columns + j;
      const float dy = in.dy.begin()[i];
      const float xhat = (in.x.begin()[i] - in.mean.begin()[r]) * in.rstd.begin()[r];
      const float t = output == Output::grad_weight ? dy * xhat : dy;
      terms[static_cast<size_t>(r)] = round_to_dtype(t, accumulate);
    }
    out[static_cast<size_t>(j)] = round_to_dtype(add_up(terms, order, accumulate), s.param_dtype);
  }
  return verify_output(*p.reference, output, out.data(), p.shape_config().param_tolerance, 2);
}

TEST(SumTolerance, Float32AccumulationPassesInAnyOrderWithRoomToSpare) {
  // 65536 rows: long sequential float32 sums; dy of one sign for dbias (uniform [0, 1)), whose
  // partial sums grow with every term, the hardest case for a sequential sum.
  const Problem p(R"({"id": "a", "op": "layer_norm_backward", "shape": [65536, 16],
                      "normalized_shape": [16], "inputs": {"x": "normal", "dy": "uniform"}})");
  for (Output output : {Output::grad_weight, Output::grad_bias})
    for (Order order : {Order::sequential, Order::pairwise}) {
      const VerificationResult r = simulated(p, output, order, DType::float32);
      EXPECT_TRUE(r.passed) << output_name(output) << ": " << violation_text(r);
      EXPECT_LT(r.tensors.at(0).accuracy.tolerance_use, 0.25) << output_name(output);
    }
}

TEST(SumTolerance, BFloat16AccumulationFails) {
  // bfloat16 data and parameters: the output's own rule is 2u|ref| + 4u (u = 2^-8), and still a
  // sum kept in bfloat16 over 4096 rows errs by far more.
  const Problem p(R"({"id": "a", "op": "layer_norm_backward", "shape": [4096, 64],
                      "normalized_shape": [64], "dtype": "bfloat16", "inputs": {"x": "normal"}})");
  for (Output output : {Output::grad_weight, Output::grad_bias}) {
    const VerificationResult good = simulated(p, output, Order::sequential, DType::float32);
    EXPECT_TRUE(good.passed) << output_name(output) << ": " << violation_text(good);
    const VerificationResult bad = simulated(p, output, Order::sequential, DType::bfloat16);
    EXPECT_FALSE(bad.passed) << output_name(output);
    EXPECT_GT(bad.violations, 32) << output_name(output);  // most of the 64 columns
    EXPECT_GT(bad.tensors.at(0).accuracy.tolerance_use, 3.0) << output_name(output);
  }
}

}  // namespace
}  // namespace normbench
