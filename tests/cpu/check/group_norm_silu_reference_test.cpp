// The reference and verification of group_norm_silu, y = silu(group_norm(x)): SiLU's exact
// values, hand-computed groups, equality with group_norm's reference followed by SiLU element
// by element (pieces, threads, every affine form), and 16-bit outputs: the output rounded once
// uses half an ULP, SiLU of a GroupNorm output already rounded to the dtype (as
// F.silu(F.group_norm(x)) computes it in PyTorch) stays inside the default tolerance, and an
// output a few ULPs off fails.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "app/check/verify.hpp"
#include "app/inputs/inputs.hpp"
#include "reference/low_precision.hpp"
#include "reference/normalization_reference.hpp"
#include "tests/cpu/check/expected_outputs.hpp"

namespace normbench {
namespace {

using testing::expected_all;

ProblemShape grouped(Op op, std::vector<int64_t> shape, int64_t groups, bool affine,
                     const ProblemFormat& format = {}) {
  return make_problem_shape(op, std::move(shape), {}, groups, 1e-5, 1.0, affine, format);
}

// n values of `dist`, rounded to `dtype` as the harness holds 16-bit tensors.
std::vector<float> values(int64_t n, const char* name, const Distribution& dist,
                          DType dtype = DType::float32) {
  std::vector<float> v(static_cast<size_t>(n));
  generate(dist, tensor_stream_key(7, name), 0, n, v.data());
  for (float& f : v) f = round_to_dtype(f, dtype);
  return v;
}

TEST(GroupNormSiluReference, SiluOfKnownValues) {
  const double ln3 = std::log(3.0);  // sigmoid(ln 3) = 3/4, sigmoid(-ln 3) = 1/4
  EXPECT_EQ(silu_exact(0.0), 0.0);
  EXPECT_NEAR(silu_exact(ln3), 0.75 * ln3, 1e-15);
  EXPECT_NEAR(silu_exact(-ln3), -0.25 * ln3, 1e-15);
  EXPECT_EQ(silu_exact(800.0), 800.0);
  EXPECT_EQ(silu_exact(-800.0), 0.0);  // e^800 overflows: -0, not NaN
  EXPECT_FALSE(std::isnan(silu_exact(-800.0)));
}

TEST(GroupNormSiluReference, HandComputedGroups) {
  // (N=1, C=2, 2 positions), one group: x = 1, 2 | 3, 4; mean 2.5, variance 1.25.
  const ProblemShape p = grouped(Op::group_norm_silu, {1, 2, 2}, 1, true);
  const std::vector<float> x = {1, 2, 3, 4}, w = {1, -2}, b = {0.5f, 0};
  const NormalizationReference ref(p, x.data(), w.data(), b.data(), 1);
  const double r = 1.0 / std::sqrt(1.25 + 1e-5);
  const double z[] = {-1.5 * r + 0.5, -0.5 * r + 0.5, 0.5 * r * -2, 1.5 * r * -2};
  const std::vector<double> y = expected_all(ref);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(y[static_cast<size_t>(i)], z[i] / (1.0 + std::exp(-z[i])), 1e-15) << i;
  EXPECT_DOUBLE_EQ(ref.mean(0), 2.5);

  // Constant groups normalize to 0 exactly: y = silu(bias) per channel.
  const ProblemShape flat = grouped(Op::group_norm_silu, {1, 4, 4}, 2, true);
  const std::vector<float> ones(16, 0.1f), w4 = {3, 3, 3, 3};
  const auto ln3 = static_cast<float>(std::log(3.0));
  const std::vector<float> b4 = {ln3, -ln3, 0, 100};
  const std::vector<double> yf =
      expected_all(NormalizationReference(flat, ones.data(), w4.data(), b4.data(), 1));
  for (int s = 0; s < 4; ++s) {
    EXPECT_NEAR(yf[static_cast<size_t>(s)], 0.75 * ln3, 1e-7);
    EXPECT_NEAR(yf[static_cast<size_t>(4 + s)], -0.25 * ln3, 1e-7);
    EXPECT_EQ(yf[static_cast<size_t>(8 + s)], 0.0);
    EXPECT_NEAR(yf[static_cast<size_t>(12 + s)], 100.0, 1e-12);
  }
}

TEST(GroupNormSiluReference, EqualsGroupNormThenSiluElementByElement) {
  // Groups of 150000 elements: three pieces each, on three threads; every affine form, and a
  // channels-last format (the reference walks the logical order, whatever the layout).
  const std::vector<int64_t> shape = {2, 6, 50000};
  const int64_t n = 2 * 6 * 50000;
  const std::vector<float> x = values(n, "x", Distribution::normal(0.5, 2.0));
  const std::vector<float> w = values(6, "w", Distribution::normal(0.0, 3.0));
  const std::vector<float> b = values(6, "b", Distribution::normal(0.0, 1.0));
  struct Form {
    bool affine;
    ProblemFormat format;
  };
  for (const Form& form :
       {Form{true, {}},
        Form{true, {DType::float32, DType::float32, Layout::nchw, /*has_bias=*/false}},
        Form{false, {}}, Form{true, {DType::float32, DType::float32, Layout::nhwc, true}}}) {
    const ProblemShape gn = grouped(Op::group_norm, shape, 2, form.affine, form.format);
    const ProblemShape gns = grouped(Op::group_norm_silu, shape, 2, form.affine, form.format);
    const std::vector<double> plain = expected_all(
        NormalizationReference(gn, x.data(), form.affine ? w.data() : nullptr, b.data(), 3));
    const std::vector<double> fused = expected_all(
        NormalizationReference(gns, x.data(), form.affine ? w.data() : nullptr, b.data(), 3));
    int64_t differing = 0, first = -1, negative = 0;
    for (size_t i = 0; i < plain.size(); ++i) {
      if (fused[i] != silu_exact(plain[i]) && differing++ == 0) first = static_cast<int64_t>(i);
      negative += plain[i] < 0;
    }
    EXPECT_EQ(differing, 0) << "first at " << first << ", affine " << form.affine << " bias "
                            << gns.has_bias << " " << layout_name(gns.layout);
    EXPECT_GT(negative, n / 4);  // both of SiLU's sides are exercised
    EXPECT_EQ(gns.min_bytes(), gn.min_bytes());
  }
}

// A bfloat16/float16 problem with the configs' distributions and weights of N(0, 16), so that
// SiLU sees values far on both sides.
struct SixteenBit {
  DType dtype;
  ProblemShape gn, gns;
  std::vector<float> x, w, b;
  explicit SixteenBit(DType d)
      : dtype(d),
        gn(grouped(Op::group_norm, {2, 64, 12, 12}, 8, true, {d, d, Layout::nhwc, true})),
        gns(grouped(Op::group_norm_silu, {2, 64, 12, 12}, 8, true, {d, d, Layout::nhwc, true})),
        x(values(gn.num_elements, "x", Distribution::normal(0.0, 1.0), d)),
        w(values(64, "w", Distribution::normal(0.0, 4.0), d)),
        b(values(64, "b", Distribution::normal(0.0, 1.0), d)) {}
};

TEST(GroupNormSiluVerification, SixteenBitOutputsRoundedOnceUseHalfAnUlp) {
  for (DType dtype : {DType::bfloat16, DType::float16}) {
    const SixteenBit t(dtype);
    const NormalizationReference ref(t.gns, t.x.data(), t.w.data(), t.b.data(), 2);
    const std::vector<double> expected = expected_all(ref);
    std::vector<float> y(expected.size());
    for (size_t i = 0; i < y.size(); ++i) y[i] = round_to_dtype(expected[i], dtype);
    const Tolerance tol = default_tolerance(dtype);
    const VerificationResult r = verify_outputs(ref, OutputValues::of_y(y.data()), tol, 2);
    EXPECT_TRUE(r.passed) << dtype_name(dtype);
    ASSERT_EQ(r.tensors.size(), 1u);
    ASSERT_TRUE(r.tensors[0].accuracy.ulp.has_value());
    EXPECT_LE(r.tensors[0].accuracy.ulp->max, 0.5) << dtype_name(dtype);
    EXPECT_EQ(r.tensors[0].accuracy.ulp->exactly_rounded, 1.0) << dtype_name(dtype);

    // One element 8 ULPs off is outside 2u |y| + 4u wherever |y| >= 1.
    size_t at = 0;
    while (std::fabs(expected[at]) < 1.0) ++at;
    y[at] = static_cast<float>(y[at] + 8 * ulp_at(expected[at], dtype));
    const VerificationResult bad = verify_outputs(ref, OutputValues::of_y(y.data()), tol, 2);
    EXPECT_FALSE(bad.passed) << dtype_name(dtype);
    EXPECT_EQ(bad.violations, 1) << dtype_name(dtype);
  }
}

TEST(GroupNormSiluVerification, SiluOfAGroupNormOutputRoundedToTheDtypePasses) {
  // PyTorch's F.silu(F.group_norm(x)) rounds z = group_norm(x) to the dtype, then silu(z):
  // the first rounding reaches y through silu's slope, by at most u (|y| + 0.44), so that the
  // two roundings stay within 2u |y| + 0.44u, inside rtol 2u and atol 4u (docs/config.md).
  for (DType dtype : {DType::bfloat16, DType::float16}) {
    const SixteenBit t(dtype);
    const std::vector<double> z =
        expected_all(NormalizationReference(t.gn, t.x.data(), t.w.data(), t.b.data(), 2));
    const NormalizationReference ref(t.gns, t.x.data(), t.w.data(), t.b.data(), 2);
    std::vector<float> y(z.size());
    int64_t changed_by_first_rounding = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      const float twice = round_to_dtype(silu_exact(round_to_dtype(z[i], dtype)), dtype);
      changed_by_first_rounding += twice != round_to_dtype(silu_exact(z[i]), dtype);
      y[i] = twice;
    }
    EXPECT_GT(changed_by_first_rounding, 0) << "the double rounding must differ somewhere";
    const VerificationResult r =
        verify_outputs(ref, OutputValues::of_y(y.data()), default_tolerance(dtype), 2);
    EXPECT_TRUE(r.passed) << dtype_name(dtype) << ": " << r.violations << " violations, worst "
                          << r.tensors[0].accuracy.tolerance_use << " of the tolerance";
  }
}

}  // namespace
}  // namespace normbench
