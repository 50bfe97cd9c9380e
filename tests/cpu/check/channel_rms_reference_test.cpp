// The reference and verification of channel_rms_norm, RMSNorm over dim 1 of NCHW x: segments
// whose C elements lie `spatial` apart, so that the pieces the verifier walks (runs of one
// (sample, channel) plane) cross many segments. Hand-computed values, the equivalence with
// rms_norm of the transposed tensor, piece bounds, thread counts, and mismatches located.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "app/check/verify.hpp"
#include "reference/normalization_reference.hpp"
#include "tests/cpu/check/expected_outputs.hpp"

namespace normbench {
namespace {

using testing::expected_all;

ProblemShape channel_problem(std::vector<int64_t> shape, bool affine, double eps = 1e-5) {
  return make_problem_shape(Op::channel_rms_norm, std::move(shape), {}, 0, eps, 1.0, affine);
}

// Values that are not symmetric in any index, so that a transposed or shifted read shows.
std::vector<float> ramp(int64_t n) {
  std::vector<float> x(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    x[static_cast<size_t>(i)] = static_cast<float>((i * 7919) % 1013) / 64.0f - 7.0f;
  return x;
}

TEST(ChannelRmsReference, DividesEachPositionByTheRootMeanSquareOfItsChannels) {
  // x of (N=1, C=2, 3 positions): position 0 holds (3, 4), 1 holds (1, -1), 2 holds (0, 0).
  const ProblemShape p = channel_problem({1, 2, 3}, true);
  const std::vector<float> x = {3, 1, 0, 4, -1, 0};
  const std::vector<float> w = {2, -0.5f};
  const NormalizationReference ref(p, {x.data(), nullptr, w.data(), nullptr}, 1);
  const double r0 = 1.0 / std::sqrt(12.5 + 1e-5);
  const double r1 = 1.0 / std::sqrt(1.0 + 1e-5);
  const std::vector<double> y = expected_all(ref);
  EXPECT_DOUBLE_EQ(y[0], 3 * r0 * 2);
  EXPECT_DOUBLE_EQ(y[3], 4 * r0 * -0.5);
  EXPECT_DOUBLE_EQ(y[1], 1 * r1 * 2);
  EXPECT_DOUBLE_EQ(y[4], -1 * r1 * -0.5);
  EXPECT_EQ(y[2], 0.0);  // a zero column stays zero
  EXPECT_DOUBLE_EQ(ref.rstd(2), 1.0 / std::sqrt(1e-5));
  EXPECT_EQ(ref.mean(0), 0.0);  // no centering

  const NormalizationReference plain(channel_problem({1, 2, 3}, false),
                                     {x.data(), nullptr, nullptr, nullptr}, 1);
  EXPECT_DOUBLE_EQ(expected_all(plain)[3], 4 * r0);
}

TEST(ChannelRmsReference, EqualsRmsNormOfTheChannelsLastTensor) {
  // Positions past one piece (65536) in each plane, so pieces split planes and cross segments.
  const int64_t n = 2, c = 3, spatial = NormalizationReference::kPieceElements + 5;
  const ProblemShape p = channel_problem({n, c, spatial}, true, 1e-3);
  const std::vector<float> x = ramp(n * c * spatial);
  const std::vector<float> w = {0.5f, -2.0f, 3.0f};
  const NormalizationReference ref(p, {x.data(), nullptr, w.data(), nullptr}, 3);
  EXPECT_EQ(ref.num_pieces(), n * c * 2);
  EXPECT_EQ(ref.piece_end(0), NormalizationReference::kPieceElements);
  EXPECT_EQ(ref.piece_begin(1), NormalizationReference::kPieceElements);
  EXPECT_EQ(ref.piece_end(1), spatial);  // a piece never crosses into the next plane

  // The same values as (n, spatial, c): there each row is a segment, as rms_norm normalizes.
  std::vector<float> rows(x.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t s = 0; s < spatial; ++s)
        rows[static_cast<size_t>((i * spatial + s) * c + k)] =
            x[static_cast<size_t>((i * c + k) * spatial + s)];
  const ProblemShape row_problem =
      make_problem_shape(Op::rms_norm, {n, spatial, c}, {c}, 0, 1e-3, 1.0, true);
  const NormalizationReference row_ref(row_problem, {rows.data(), nullptr, w.data(), nullptr}, 2);
  const std::vector<double> y = expected_all(ref);
  const std::vector<double> y_rows = expected_all(row_ref);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t s = 0; s < spatial; ++s)
        ASSERT_NEAR(y[static_cast<size_t>((i * c + k) * spatial + s)],
                    y_rows[static_cast<size_t>((i * spatial + s) * c + k)], 1e-12)
            << "sample " << i << " channel " << k << " position " << s;
  for (int64_t segment = 0; segment < p.num_segments; ++segment)
    ASSERT_DOUBLE_EQ(ref.rstd(segment), row_ref.rstd(segment)) << segment;
}

TEST(ChannelRmsReference, SameStatisticsOnAnyThreadCount) {
  const ProblemShape p = channel_problem({3, 5, 40000}, false);
  const std::vector<float> x = ramp(p.num_elements);
  const NormalizationReference one(p, {x.data(), nullptr, nullptr, nullptr}, 1);
  const NormalizationReference four(p, {x.data(), nullptr, nullptr, nullptr}, 4);
  for (int64_t s = 0; s < p.num_segments; ++s) ASSERT_EQ(one.rstd(s), four.rstd(s)) << s;
}

TEST(ChannelRmsVerification, PassesTheExactOutputAndLocatesAWrongElement) {
  const ProblemShape p = channel_problem({2, 4, 3, 5}, true);
  const std::vector<float> x = ramp(p.num_elements);
  const std::vector<float> w = {1.0f, 0.25f, -1.5f, 2.0f};
  const NormalizationReference ref(p, {x.data(), nullptr, w.data(), nullptr}, 2);
  const std::vector<double> expected = expected_all(ref);
  std::vector<float> y(expected.begin(), expected.end());
  const Tolerance tol;
  const VerificationResult good = verify_outputs(ref, OutputValues::of_y(y.data()), tol, 2);
  EXPECT_TRUE(good.passed);
  EXPECT_EQ(good.checked, p.num_elements);

  // Sample 1, channel 2, position (1, 3): every element is checked, at its NCHW coordinates.
  const int64_t wrong = ((1 * 4 + 2) * 3 + 1) * 5 + 3;
  y[static_cast<size_t>(wrong)] += 0.01f;
  const VerificationResult bad = verify_outputs(ref, OutputValues::of_y(y.data()), tol, 2);
  EXPECT_FALSE(bad.passed);
  EXPECT_EQ(bad.violations, 1);
  ASSERT_EQ(bad.first_mismatches.size(), 1u);
  EXPECT_EQ(bad.first_mismatches[0].index, wrong);
  EXPECT_EQ(bad.first_mismatches[0].coords, (std::vector<int64_t>{1, 2, 1, 3}));
}

}  // namespace
}  // namespace normbench
