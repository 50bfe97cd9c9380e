// Verification of a kernel's output against the reference: the tolerance rule at its edge,
// non-finite values, mismatch reporting and the error metrics on a hand example.
#include "app/check/verify.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "app/inputs/inputs.hpp"

namespace normbench {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
const Tolerance kDefaultTolerance{1e-5, 1e-5};

// A layer_norm problem on random data with its reference and the reference rounded to float,
// which is the best output a float kernel can produce.
struct Problem {
  ProblemShape shape;
  std::vector<float> x, w, b;
  std::unique_ptr<NormalizationReference> reference;
  std::vector<double> expected;
  std::vector<float> best;

  Problem(int64_t rows, int64_t row_size, int threads = 2)
      : shape(make_problem_shape(Op::layer_norm, {rows, row_size}, {row_size}, 0, 1e-5, 1.0, true)),
        x(static_cast<size_t>(rows * row_size)),
        w(static_cast<size_t>(row_size)),
        b(static_cast<size_t>(row_size)) {
    generate(Distribution::uniform(), 1, 0, rows * row_size, x.data());
    generate(Distribution::normal(), 2, 0, row_size, w.data());
    generate(Distribution::normal(), 3, 0, row_size, b.data());
    reset_reference(threads);
  }
  void reset_reference(int threads) {
    reference =
        std::make_unique<NormalizationReference>(shape, x.data(), w.data(), b.data(), threads);
    expected.resize(x.size());
    for (int64_t p = 0; p < reference->num_pieces(); ++p) {
      const int64_t begin = reference->piece_begin(p);
      reference->expected(begin, reference->piece_end(p) - begin, expected.data() + begin);
    }
    best.assign(expected.begin(), expected.end());
  }
  VerificationResult verify(const std::vector<float>& y, size_t max_mismatches = 8,
                            int threads = 4) const {
    return verify_output(*reference, y.data(), kDefaultTolerance, threads, max_mismatches);
  }
};

TEST(Verify, WithinToleranceAtTheEdge) {
  // Dyadic numbers, so atol + rtol * |ref| and |y - ref| are exact.
  const Tolerance t{0.25, 0.25};  // rtol, atol: the bound at ref = 1 is 0.5
  EXPECT_TRUE(within_tolerance(1.0f, 1.0, t));
  EXPECT_TRUE(within_tolerance(1.5f, 1.0, t));
  EXPECT_FALSE(within_tolerance(std::nextafter(1.5f, 2.0f), 1.0, t));
  EXPECT_TRUE(within_tolerance(0.5f, 1.0, t));
  EXPECT_FALSE(within_tolerance(std::nextafter(0.5f, 0.0f), 1.0, t));
  // Negative reference: the bound uses |ref|. 0.25 + 0.125 * 2 = 0.5
  const Tolerance n{0.125, 0.25};
  EXPECT_TRUE(within_tolerance(-2.5f, -2.0, n));
  EXPECT_TRUE(within_tolerance(-1.5f, -2.0, n));
  EXPECT_FALSE(within_tolerance(std::nextafter(-2.5f, -3.0f), -2.0, n));
  EXPECT_FALSE(within_tolerance(std::nextafter(-1.5f, 0.0f), -2.0, n));
  // At ref = 0 only atol counts, however large rtol is.
  const Tolerance relative_only{1e6, 0.0};
  EXPECT_TRUE(within_tolerance(0.0f, 0.0, relative_only));
  EXPECT_FALSE(within_tolerance(std::numeric_limits<float>::denorm_min(), 0.0, relative_only));
}

TEST(Verify, NonFiniteValues) {
  const Tolerance t{1e-5, 1e-5};
  EXPECT_FALSE(within_tolerance(kNaN, 1.0, t));
  EXPECT_FALSE(within_tolerance(kNaN, 0.0, t));
  EXPECT_TRUE(within_tolerance(kNaN, std::nan(""), t));
  EXPECT_FALSE(within_tolerance(1.0f, std::nan(""), t));
  EXPECT_TRUE(within_tolerance(kInf, HUGE_VAL, t));
  EXPECT_TRUE(within_tolerance(-kInf, -HUGE_VAL, t));
  EXPECT_FALSE(within_tolerance(kInf, -HUGE_VAL, t));
  EXPECT_FALSE(within_tolerance(kInf, 1e300, t));
  EXPECT_FALSE(within_tolerance(3.0e38f, HUGE_VAL, t));
  EXPECT_FALSE(within_tolerance(kNaN, HUGE_VAL, t));
}

TEST(Verify, ExactMatchPasses) {
  const Problem p(4, 70000);  // rows of two pieces, several chunks
  const VerificationResult r = p.verify(p.best);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.checked, 280000);
  EXPECT_EQ(r.violations, 0);
  EXPECT_EQ(r.nonfinite, 0);
  EXPECT_TRUE(r.first_mismatches.empty());
  // Only float rounding is left: half an ulp, relative 2^-24.
  EXPECT_GT(r.max_abs_error, 0.0);
  EXPECT_LT(r.max_abs_error, 1e-6);
  EXPECT_LE(r.max_rel_error, std::ldexp(1.0, -24));
  ASSERT_TRUE(r.rel_l2_error.has_value());
  EXPECT_LT(*r.rel_l2_error, 1e-7);
}

TEST(Verify, SameResultForAnyThreadCount) {
  const Problem p(4, 70000);
  std::vector<float> y = p.best;
  for (size_t i = 0; i < y.size(); i += 997) y[i] += 1e-4f * static_cast<float>(i % 7);
  const VerificationResult one = p.verify(y, 8, 1), four = p.verify(y, 8, 4);
  EXPECT_EQ(one.violations, four.violations);
  EXPECT_EQ(one.max_abs_error, four.max_abs_error);
  EXPECT_EQ(one.max_rel_error, four.max_rel_error);
  EXPECT_EQ(one.rel_l2_error, four.rel_l2_error);
  ASSERT_EQ(one.first_mismatches.size(), four.first_mismatches.size());
  for (size_t i = 0; i < one.first_mismatches.size(); ++i)
    EXPECT_EQ(one.first_mismatches[i].index, four.first_mismatches[i].index);
}

TEST(Verify, NaNAndInfOutputsFailAndAreCountedAsNonFinite) {
  const Problem p(2, 100);
  std::vector<float> y = p.best;
  y[5] = kNaN;
  y[9] = kInf;
  y[150] = p.best[150] + 1.0f;  // a finite violation
  const VerificationResult r = p.verify(y);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.violations, 3);
  EXPECT_EQ(r.nonfinite, 2);
  EXPECT_NEAR(r.max_abs_error, 1.0, 1e-6);  // non-finite errors do not enter the maxima
  ASSERT_EQ(r.first_mismatches.size(), 3u);
  EXPECT_EQ(r.first_mismatches[0].index, 5);
  EXPECT_TRUE(std::isnan(r.first_mismatches[0].value));
  EXPECT_EQ(r.first_mismatches[1].index, 9);
  EXPECT_EQ(r.first_mismatches[1].value, kInf);
  EXPECT_EQ(r.first_mismatches[2].coords, (std::vector<int64_t>{1, 50}));
}

TEST(Verify, NaNInTheReferenceAcceptsOnlyNaN) {
  Problem p(3, 50);
  p.x[60] = kNaN;  // poisons row 1 of the reference
  p.reset_reference(1);
  for (int i = 50; i < 100; ++i) ASSERT_TRUE(std::isnan(p.expected[static_cast<size_t>(i)]));

  std::vector<float> y = p.best;  // NaN where the reference is NaN
  EXPECT_TRUE(p.verify(y).passed);

  for (int i = 50; i < 100; ++i) y[static_cast<size_t>(i)] = 0.0f;
  const VerificationResult r = p.verify(y);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.violations, 50);
  EXPECT_EQ(r.nonfinite, 0);  // the output is finite; the reference is not
  EXPECT_EQ(r.first_mismatches.at(0).index, 50);

  // Inf against a NaN reference fails, but is not counted as the kernel's non-finite output.
  for (int i = 50; i < 100; ++i) y[static_cast<size_t>(i)] = kInf;
  const VerificationResult inf = p.verify(y);
  EXPECT_EQ(inf.violations, 50);
  EXPECT_EQ(inf.nonfinite, 0);
}

TEST(Verify, UnwrittenHalfFails) {
  const Problem p(2, 70000);
  std::vector<float> y = p.best;
  std::fill(y.begin() + 70000, y.end(), kNaN);  // as if the kernel skipped row 1
  const VerificationResult r = p.verify(y);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.checked, 140000);
  EXPECT_EQ(r.violations, 70000);
  EXPECT_EQ(r.nonfinite, 70000);
  ASSERT_EQ(r.first_mismatches.size(), 8u);
  for (int64_t k = 0; k < 8; ++k) {
    const Mismatch& m = r.first_mismatches[static_cast<size_t>(k)];
    EXPECT_EQ(m.index, 70000 + k);
    EXPECT_EQ(m.coords, (std::vector<int64_t>{1, k}));
    EXPECT_TRUE(std::isnan(m.value));
    EXPECT_EQ(m.expected, p.expected[static_cast<size_t>(70000 + k)]);
  }
}

TEST(Verify, FirstMismatchesAreTheLowestIndices) {
  const Problem p(4, 70000);  // 8 pieces: the mismatches land in different chunks
  std::vector<float> y = p.best;
  for (int64_t i : {279999, 5, 140003, 70001, 200000}) y[static_cast<size_t>(i)] += 0.5f;

  const VerificationResult three = p.verify(y, 3);
  EXPECT_EQ(three.violations, 5);
  ASSERT_EQ(three.first_mismatches.size(), 3u);
  const int64_t indices[] = {5, 70001, 140003};
  const std::vector<int64_t> coords[] = {{0, 5}, {1, 1}, {2, 3}};
  for (size_t k = 0; k < 3; ++k) {
    const Mismatch& m = three.first_mismatches[k];
    EXPECT_EQ(m.index, indices[k]);
    EXPECT_EQ(m.coords, coords[k]);
    EXPECT_EQ(m.value, y[static_cast<size_t>(indices[k])]);
    EXPECT_EQ(m.expected, p.expected[static_cast<size_t>(indices[k])]);
  }

  const VerificationResult all = p.verify(y);
  ASSERT_EQ(all.first_mismatches.size(), 5u);
  EXPECT_EQ(all.first_mismatches[3].index, 200000);
  EXPECT_EQ(all.first_mismatches[3].coords, (std::vector<int64_t>{2, 60000}));
  EXPECT_EQ(all.first_mismatches[4].index, 279999);

  const VerificationResult none = p.verify(y, 0);
  EXPECT_EQ(none.violations, 5);
  EXPECT_TRUE(none.first_mismatches.empty());
}

TEST(Verify, ErrorMetricsOnAHandExample) {
  // Row [-3, -1, 1, 3]: mean 0, biased variance 5; eps 11 makes rstd exactly 1/4, so the
  // reference is exactly [-0.75, -0.25, 0.25, 0.75].
  const ProblemShape shape = make_problem_shape(Op::layer_norm, {1, 4}, {4}, 0, 11.0, 1.0, false);
  const std::vector<float> x = {-3, -1, 1, 3};
  const NormalizationReference reference(shape, x.data(), nullptr, nullptr, 1);
  const std::vector<float> y = {-0.75f, 0.25f, 0.5f, 0.75f};  // errors 0, 0.5, 0.25, 0
  const VerificationResult r = verify_output(reference, y.data(), Tolerance{0.0, 0.1}, 1);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.violations, 2);
  EXPECT_EQ(r.nonfinite, 0);
  EXPECT_DOUBLE_EQ(r.max_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(r.max_rel_error, 2.0);  // 0.5 / 0.25
  ASSERT_TRUE(r.rel_l2_error.has_value());
  // sqrt(0.25 + 0.0625) / sqrt(0.5625 + 0.0625 + 0.0625 + 0.5625) = sqrt(0.3125 / 1.25)
  EXPECT_DOUBLE_EQ(*r.rel_l2_error, 0.5);
  ASSERT_EQ(r.first_mismatches.size(), 2u);
  EXPECT_EQ(r.first_mismatches[0].index, 1);
  EXPECT_EQ(r.first_mismatches[0].expected, -0.25);
  EXPECT_EQ(r.first_mismatches[1].value, 0.5f);
  EXPECT_TRUE(verify_output(reference, y.data(), Tolerance{0.0, 0.5}, 1).passed);
}

TEST(Verify, ZeroReferenceHasNoRelativeErrors) {
  // A constant row without affine normalizes to exactly 0 everywhere.
  const ProblemShape shape = make_problem_shape(Op::layer_norm, {2, 3}, {3}, 0, 1e-5, 1.0, false);
  const std::vector<float> x = {4, 4, 4, 1, 1, 1};
  const NormalizationReference reference(shape, x.data(), nullptr, nullptr, 1);
  const std::vector<float> zeros(6, 0.0f);
  const VerificationResult exact = verify_output(reference, zeros.data(), kDefaultTolerance, 1);
  EXPECT_TRUE(exact.passed);
  EXPECT_FALSE(exact.rel_l2_error.has_value());  // ||ref|| = 0

  std::vector<float> y = zeros;
  y[4] = 0.5f;
  const VerificationResult r = verify_output(reference, y.data(), kDefaultTolerance, 1);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.violations, 1);
  EXPECT_DOUBLE_EQ(r.max_abs_error, 0.5);
  EXPECT_EQ(r.max_rel_error, 0.0);
  EXPECT_EQ(r.first_mismatches.at(0).coords, (std::vector<int64_t>{1, 1}));
}

TEST(Verify, UnravelIndex) {
  const std::vector<int64_t> shape = {2, 3, 4};
  EXPECT_EQ(unravel_index(0, shape), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(unravel_index(17, shape), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(unravel_index(23, shape), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(unravel_index(11, shape), (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(unravel_index(6, {7}), (std::vector<int64_t>{6}));
}

}  // namespace
}  // namespace normbench
