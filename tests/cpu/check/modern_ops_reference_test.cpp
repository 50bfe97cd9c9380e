// The reference and verification of the LLM ops: RMSNorm (no centering, optional weight),
// LayerNorm without bias, and add_rms_norm's two outputs (s against the exact sum, y from s
// rounded as the dtype holds it), with violations named by output.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "app/check/verify.hpp"
#include "reference/normalization_reference.hpp"
#include "tests/cpu/check/expected_outputs.hpp"

namespace normbench {
namespace {

using testing::expected_all;

OutputValues y_and_s(const std::vector<float>& y, const std::vector<float>& s) {
  OutputValues v = OutputValues::of_y(y.data());
  v[Output::sum] = s.data();
  return v;
}

TEST(ModernReference, RmsNormDividesByTheRootMeanSquare) {
  const ProblemShape p = make_problem_shape(Op::rms_norm, {2, 4}, {4}, 0, 1e-5, 1.0, true);
  const std::vector<float> x = {1, 2, 3, 4, -1, 1, -1, 1};
  const std::vector<float> w = {1, 0.5f, 2, -1};
  const NormalizationReference ref(p, {x.data(), nullptr, w.data(), nullptr}, 1);
  const double r0 = 1.0 / std::sqrt(7.5 + 1e-5);
  const double r1 = 1.0 / std::sqrt(1.0 + 1e-5);
  const std::vector<double> y = expected_all(ref, Output::y);
  EXPECT_DOUBLE_EQ(y[0], 1 * r0 * 1);
  EXPECT_DOUBLE_EQ(y[1], 2 * r0 * 0.5);
  EXPECT_DOUBLE_EQ(y[3], 4 * r0 * -1);
  EXPECT_DOUBLE_EQ(y[4], -1 * r1 * 1);
  EXPECT_DOUBLE_EQ(y[6], -1 * r1 * 2);
  EXPECT_EQ(ref.mean(0), 0.0);  // no centering

  const ProblemShape plain = make_problem_shape(Op::rms_norm, {2, 4}, {4}, 0, 1e-5, 1.0, false);
  const NormalizationReference no_weight(plain, {x.data(), nullptr, nullptr, nullptr}, 1);
  EXPECT_DOUBLE_EQ(expected_all(no_weight, Output::y)[2], 3 * r0);
}

TEST(ModernReference, LayerNormWithoutBiasAddsNothing) {
  const ProblemShape p = make_problem_shape(Op::layer_norm, {1, 4}, {4}, 0, 0.0, 1.0, true,
                                            {DType::float32, DType::float32, Layout::nchw, false});
  const std::vector<float> x = {1, 2, 3, 4};
  const std::vector<float> w = {2, 2, 2, 2};
  const std::vector<float> b = {100, 100, 100, 100};  // present in memory, not in the problem
  const NormalizationReference ref(p, {x.data(), nullptr, w.data(), b.data()}, 1);
  const double rstd = 1.0 / std::sqrt(1.25);
  EXPECT_DOUBLE_EQ(expected_all(ref, Output::y)[0], -1.5 * rstd * 2);
}

// bfloat16 rows whose float sums need rounding: 1 + 2^-8 + 2^-10 rounds up to 1 + 2^-7, and
// 2 + 2^-7 is a tie that rounds to the even 2.
struct AddRmsCase {
  ProblemShape problem = make_problem_shape(Op::add_rms_norm, {1, 4}, {4}, 0, 1e-6, 1.0, false,
                                            {DType::bfloat16, DType::bfloat16});
  std::vector<float> x = {1.0f, -0.5f, 2.0f, 0.25f};
  std::vector<float> r = {0x1p-8f + 0x1p-10f, 0.5f, 0x1p-7f, 0.25f};
  std::vector<double> rounded_s = {1.0078125, 0.0, 2.0, 0.5};
  NormalizationReference reference{problem, {x.data(), r.data(), nullptr, nullptr}, 1};
};

TEST(ModernReference, AddRmsNormReferencesTheExactSumAndNormalizesTheRoundedOne) {
  const AddRmsCase c;
  const std::vector<double> s = expected_all(c.reference, Output::sum);
  EXPECT_DOUBLE_EQ(s[0], 1.0048828125);  // exact
  EXPECT_DOUBLE_EQ(s[2], 2.0078125);
  double squares = 0;
  for (double v : c.rounded_s) squares += v * v;
  const double rrms = 1.0 / std::sqrt(squares / 4 + 1e-6);
  const std::vector<double> y = expected_all(c.reference, Output::y);
  for (size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(y[i], c.rounded_s[i] * rrms) << i;
  EXPECT_EQ(problem_outputs(c.problem).size(), 2u);
}

TEST(ModernVerification, BothOutputsAreCheckedAndViolationsNamed) {
  const AddRmsCase c;
  const Tolerance tol{0x1p-7, 0x1p-7};
  std::vector<float> y(4), s(4);
  const std::vector<double> ey = expected_all(c.reference, Output::y);
  for (size_t i = 0; i < 4; ++i) {
    y[i] = static_cast<float>(ey[i]);
    s[i] = static_cast<float>(c.rounded_s[i]);  // s as a bfloat16 kernel writes it
  }
  const VerificationResult good = verify_outputs(c.reference, y_and_s(y, s), tol, 1);
  EXPECT_TRUE(good.passed);
  EXPECT_EQ(good.checked, 8);
  ASSERT_EQ(good.tensors.size(), 2u);
  EXPECT_EQ(good.tensors[1].tensor, "s");

  s[1] = 0.5f;  // 0.5 where x + residual is 0
  const VerificationResult bad = verify_outputs(c.reference, y_and_s(y, s), tol, 1);
  EXPECT_FALSE(bad.passed);
  EXPECT_EQ(bad.violations, 1);
  ASSERT_EQ(bad.first_mismatches.size(), 1u);
  EXPECT_EQ(bad.first_mismatches[0].tensor, "s");
  EXPECT_EQ(bad.first_mismatches[0].index, 1);
  EXPECT_EQ(violation_text(bad),
            "s: 1 of 4 elements outside |s - ref| <= 0.0078125 + 0.0078125 * |ref|");

  y[3] = NAN;  // and y, NaN: both named, in output order
  const VerificationResult worse = verify_outputs(c.reference, y_and_s(y, s), tol, 1);
  EXPECT_EQ(violation_text(worse),
            "y: 1 of 4 elements outside |y - ref| <= 0.0078125 + 0.0078125 * |ref| (1 NaN/Inf); "
            "s: 1 of 4 elements outside |s - ref| <= 0.0078125 + 0.0078125 * |ref|");
  EXPECT_EQ(worse.first_mismatches[0].tensor, "y");
}

TEST(ModernVerification, OneOutputKeepsTheFamiliarMessage) {
  const ProblemShape p = make_problem_shape(Op::rms_norm, {1, 4}, {4}, 0, 1e-5, 1.0, false);
  const std::vector<float> x = {1, 2, 3, 4};
  const NormalizationReference ref(p, {x.data(), nullptr, nullptr, nullptr}, 1);
  std::vector<float> y = {0, 0, 0, 0};
  const Tolerance tol;
  const VerificationResult r = verify_outputs(ref, OutputValues::of_y(y.data()), tol, 1);
  EXPECT_EQ(violation_text(r), "4 of 4 elements outside |y - ref| <= 1e-05 + 1e-05 * |ref|");
}

}  // namespace
}  // namespace normbench
