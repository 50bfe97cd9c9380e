// The float64 CPU reference: hand-computed small cases (values from NumPy in float64), the
// invariants of a normalization, thread-count independence and segments split into pieces.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "app/inputs/inputs.hpp"
#include "reference/normalization_reference.hpp"

namespace normbench {
namespace {

ProblemShape layer_norm_shape(std::vector<int64_t> shape, std::vector<int64_t> normalized,
                              bool affine = true, double eps = 1e-5) {
  return make_problem_shape(Op::layer_norm, std::move(shape), std::move(normalized), 0, eps, 1.0,
                            affine);
}

ProblemShape group_norm_shape(std::vector<int64_t> shape, int64_t groups, bool affine = true) {
  return make_problem_shape(Op::group_norm, std::move(shape), {}, groups, 1e-5, 1.0, affine);
}

// Every expected output, walked piece by piece as the verifier does.
std::vector<double> all_expected(const NormalizationReference& reference) {
  std::vector<double> out(static_cast<size_t>(reference.problem().num_elements));
  for (int64_t p = 0; p < reference.num_pieces(); ++p) {
    const int64_t begin = reference.piece_begin(p);
    reference.expected(begin, reference.piece_end(p) - begin, out.data() + begin);
  }
  return out;
}

std::vector<double> expected_of(const ProblemShape& shape, const std::vector<float>& x,
                                const std::vector<float>& w = {}, const std::vector<float>& b = {},
                                int threads = 1) {
  const NormalizationReference reference(shape, x.data(), w.empty() ? nullptr : w.data(),
                                         b.empty() ? nullptr : b.data(), threads);
  return all_expected(reference);
}

void expect_all_near(const std::vector<double>& actual, const std::vector<double>& expected,
                     double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
}

std::vector<float> random_floats(int64_t n, uint64_t seed, const Distribution& dist) {
  std::vector<float> v(static_cast<size_t>(n));
  generate(dist, tensor_stream_key(seed, "test"), 0, n, v.data());
  return v;
}

double gelu_by_erf(double v) {
  return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
}

// A textbook reference with plain loops: per segment mean, biased variance, then the affine
// transform with the channel found from explicit (n, c, s) loops for group_norm.
std::vector<double> naive_reference(const ProblemShape& p, const std::vector<float>& x,
                                    const std::vector<float>& w, const std::vector<float>& b) {
  std::vector<double> y(x.size());
  for (int64_t s = 0; s < p.num_segments; ++s) {
    const int64_t first = s * p.segment_size;
    double sum = 0.0;
    for (int64_t i = 0; i < p.segment_size; ++i) sum += x[static_cast<size_t>(first + i)];
    const double mean = sum / static_cast<double>(p.segment_size);
    double ss = 0.0;
    for (int64_t i = 0; i < p.segment_size; ++i) {
      const double d = x[static_cast<size_t>(first + i)] - mean;
      ss += d * d;
    }
    const double rstd = 1.0 / std::sqrt(ss / static_cast<double>(p.segment_size) + p.eps);
    for (int64_t i = 0; i < p.segment_size; ++i)
      y[static_cast<size_t>(first + i)] = (x[static_cast<size_t>(first + i)] - mean) * rstd;
  }
  if (p.affine && p.op == Op::group_norm) {
    const int64_t batch = p.shape[0];
    for (int64_t n = 0, i = 0; n < batch; ++n)
      for (int64_t c = 0; c < p.channels; ++c)
        for (int64_t s = 0; s < p.spatial; ++s, ++i)
          y[static_cast<size_t>(i)] =
              y[static_cast<size_t>(i)] * w[static_cast<size_t>(c)] + b[static_cast<size_t>(c)];
  } else if (p.affine) {
    for (size_t i = 0; i < y.size(); ++i) {
      const size_t k = i % static_cast<size_t>(p.segment_size);
      y[i] = y[i] * w[k] + b[k];
    }
  }
  if (p.op == Op::layer_norm_gelu_scale)
    for (double& v : y) v = gelu_by_erf(v) * p.scale;
  return y;
}

TEST(Reference, GeluExactValues) {
  EXPECT_EQ(gelu_exact(0.0), 0.0);
  EXPECT_NEAR(gelu_exact(1.0), 0.8413447460685429, 1e-15);
  EXPECT_NEAR(gelu_exact(-1.0), -0.15865525393145707, 1e-15);
  EXPECT_NEAR(gelu_exact(-3.0), -0.00404969409489031, 1e-16);
  EXPECT_NEAR(gelu_exact(10.0), 10.0, 1e-12);  // the identity far right
  EXPECT_NEAR(gelu_exact(-10.0), 0.0, 1e-12);  // zero far left
}

TEST(Reference, LayerNormOfOneToFour) {
  // mean 2.5, biased variance 1.25, rstd = 1 / sqrt(1.25 + 1e-5)
  const std::vector<float> x = {1, 2, 3, 4};
  const NormalizationReference plain(layer_norm_shape({1, 4}, {4}, false), x.data(), nullptr,
                                     nullptr, 1);
  EXPECT_DOUBLE_EQ(plain.mean(0), 2.5);
  EXPECT_NEAR(plain.rstd(0), 0.894423613312618, 1e-15);
  expect_all_near(all_expected(plain),
                  {-1.3416354199689269, -0.447211806656309, 0.447211806656309, 1.3416354199689269},
                  1e-14);

  const std::vector<float> w = {1, 2, -1, 0.5f}, b = {0, 1, 0.5f, -2};
  expect_all_near(expected_of(layer_norm_shape({1, 4}, {4}), x, w, b),
                  {-1.3416354199689269, 0.105576386687382, 0.052788193343691, -1.3291822900155366},
                  1e-14);
}

TEST(Reference, LayerNormOverSeveralTrailingDims) {
  // normalized_shape [2, 2]: rows of 4, weight indexed by the position inside the row.
  const std::vector<float> x = {1, 2, 3, 4, 5, 5, 5, 5};
  const std::vector<float> w = {1, 2, -1, 0.5f}, b = {0, 1, 0.5f, -2};
  expect_all_near(expected_of(layer_norm_shape({2, 2, 2}, {2, 2}), x, w, b),
                  {-1.3416354199689269, 0.105576386687382, 0.052788193343691, -1.3291822900155366,
                   0, 1, 0.5, -2},
                  1e-14);
}

TEST(Reference, GroupNormNchwWithGroupsOfTwoChannels) {
  // N=2, C=4, spatial 2, 2 groups: group g holds channels 2g and 2g+1.
  const std::vector<float> x = {1, 2, 3, 4, 10, 20, 30, 40, -1, -1, 1, 1, 0, 0, 0, 8};
  const std::vector<float> w = {1, 2, 3, 4}, b = {0, 0.5f, -1, 2};
  expect_all_near(expected_of(group_norm_shape({2, 4, 2}, 2), x, w, b),
                  {-1.3416354199689269, -0.447211806656309, 1.394423613312618, 3.1832708399378538,
                   -5.024922198502737, -2.3416407328342457, 3.788854310445661, 7.366562931336983,
                   -0.9999950000374997, -0.9999950000374997, 2.4999900000749995, 2.4999900000749995,
                   -2.732050085881492, -2.732050085881492, -0.30940011450865557, 8.928200343525967},
                  1e-13);
}

TEST(Reference, GroupNormOfRankTwoInput) {
  // (N, C) = (2, 6), no spatial dims, 3 groups of 2 channels of 1 element.
  const std::vector<float> x = {1, 3, 2, 6, -1, 1, 0, 0, 5, 5, 1, 2};
  const std::vector<float> w = {1, 2, 3, 4, 5, 6}, b = {0.5f, -0.5f, 0, 1, -1, 2};
  expect_all_near(expected_of(group_norm_shape({2, 6}, 3), x, w, b),
                  {-0.49999500003749975, 1.4999900000749995, -2.9999962500070314, 4.999995000009375,
                   -5.999975000187499, 7.999970000224998, 0.5, -0.5, 0.0, 1.0, -5.999900002999899,
                   7.99988000359988},
                  1e-13);
}

TEST(Reference, LayerNormGeluScale) {
  // Row [-1, 1]: mean 0, variance 1; eps 1e-12 keeps the normalized values at +-1 to 1e-12.
  const auto shape = [](bool affine) {
    return make_problem_shape(Op::layer_norm_gelu_scale, {2, 2}, {2}, 0, 1e-12, 2.0, affine);
  };
  const std::vector<float> x = {-1, 1, 3, 3};
  // 2 * gelu(-1), 2 * gelu(1); the constant row normalizes to 0 and gelu(0) = 0.
  expect_all_near(expected_of(shape(false), x),
                  {-0.31731050786291415, 1.6826894921370859, 0.0, 0.0}, 1e-10);
  // GELU applies after the affine transform: weight 3 turns -1 into -3, giving 2 * gelu(-3).
  expect_all_near(expected_of(shape(true), x, {3, 1}, {0, 0}),
                  {-0.00809938818978062, 1.6826894921370859, 0.0, 0.0}, 1e-10);
  // Bias +-0.5: 2 * gelu(-0.5), 2 * gelu(0.5), then the constant row gives 2 * gelu(bias).
  expect_all_near(
      expected_of(shape(true), x, {1, 1}, {0.5f, -0.5f}),
      {-0.3085375387259869, 0.6914624612740131, 0.6914624612740131, -0.3085375387259869}, 1e-10);
}

TEST(Reference, NoAffineOutputHasMeanZeroAndShrunkVariance) {
  // With eps the normalized variance is var / (var + eps), visibly below 1 for eps = 0.01.
  const ProblemShape shape = layer_norm_shape({8, 1000}, {1000}, false, 0.01);
  const auto x = random_floats(8000, 1, Distribution::normal(2.0, 0.3));
  const auto y = expected_of(shape, x);
  for (int row = 0; row < 8; ++row) {
    double sum = 0, sum_sq = 0, mean_x = 0, var_x = 0;
    for (int i = 0; i < 1000; ++i) mean_x += x[static_cast<size_t>(row * 1000 + i)] / 1000.0;
    for (int i = 0; i < 1000; ++i) {
      const double d = x[static_cast<size_t>(row * 1000 + i)] - mean_x;
      var_x += d * d / 1000.0;
      sum += y[static_cast<size_t>(row * 1000 + i)];
      sum_sq += y[static_cast<size_t>(row * 1000 + i)] * y[static_cast<size_t>(row * 1000 + i)];
    }
    EXPECT_NEAR(sum / 1000.0, 0.0, 1e-12);
    EXPECT_NEAR(sum_sq / 1000.0, var_x / (var_x + 0.01), 1e-12);
    EXPECT_LT(sum_sq / 1000.0, 0.95);  // var ~0.09: the shrink is real
  }
}

TEST(Reference, ConstantSegmentsGiveExactlyTheBias) {
  // Rows of 100000 span two pieces; x - mean is exactly 0 for a constant row.
  const ProblemShape ln = layer_norm_shape({2, 100000}, {100000});
  const std::vector<float> x(200000, -7.3f);
  const auto w = random_floats(100000, 2, Distribution::normal());
  const auto b = random_floats(100000, 3, Distribution::normal());
  const auto y = expected_of(ln, x, w, b);
  for (size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y[i], static_cast<double>(b[i % 100000])) << i;

  const ProblemShape gn = group_norm_shape({2, 4, 3}, 2);
  const std::vector<float> gx(24, 0.1f), gw = {1, 2, 3, 4}, gb = {-1, 0.25f, 3, 8};
  const auto gy = expected_of(gn, gx, gw, gb);
  for (size_t i = 0; i < gy.size(); ++i) ASSERT_EQ(gy[i], static_cast<double>(gb[(i / 3) % 4]));
}

TEST(Reference, LargeMeanGivesTheSameOutputAsCenteredData) {
  // Multiples of 2^-10 below 2: 1000 + v is exact in float, so both inputs hold the same
  // deviations; a one-pass E[x^2] - E[x]^2 would lose them to cancellation.
  for (int64_t row : {64, 100003}) {
    SCOPED_TRACE(row);
    const ProblemShape shape = layer_norm_shape({2, row}, {row}, false);
    auto small = random_floats(2 * row, 4, Distribution::uniform(-2.0, 2.0));
    std::vector<float> large(small.size());
    for (size_t i = 0; i < small.size(); ++i) {
      small[i] = std::round(small[i] * 1024.0f) / 1024.0f;
      large[i] = 1000.0f + small[i];
      ASSERT_EQ(large[i] - 1000.0f, small[i]);
    }
    expect_all_near(expected_of(shape, large), expected_of(shape, small), 1e-9);
  }
}

TEST(Reference, IdenticalForAnyThreadCount) {
  const ProblemShape shapes[] = {layer_norm_shape({3, 200000}, {200000}),
                                 layer_norm_shape({5000, 64}, {64}),
                                 group_norm_shape({2, 4, 150, 150}, 1)};
  for (const ProblemShape& shape : shapes) {
    const auto x = random_floats(shape.num_elements, 5, Distribution::normal(1.0, 3.0));
    const auto w = random_floats(shape.param_size, 6, Distribution::normal());
    const auto b = random_floats(shape.param_size, 7, Distribution::normal());
    const NormalizationReference one(shape, x.data(), w.data(), b.data(), 1);
    const NormalizationReference four(shape, x.data(), w.data(), b.data(), 4);
    for (int64_t s = 0; s < shape.num_segments; ++s) {
      ASSERT_EQ(one.mean(s), four.mean(s));
      ASSERT_EQ(one.rstd(s), four.rstd(s));
    }
    const auto y1 = all_expected(one), y4 = all_expected(four);
    EXPECT_EQ(std::memcmp(y1.data(), y4.data(), y1.size() * sizeof(double)), 0);
  }
}

TEST(Reference, LongSegmentsSplitIntoPieces) {
  constexpr int64_t kPiece = NormalizationReference::kPieceElements;
  ASSERT_EQ(kPiece, 65536);
  const ProblemShape shape = layer_norm_shape({2, 150001}, {150001});
  const auto x = random_floats(300002, 8, Distribution::uniform(-5.0, 20.0));
  const auto w = random_floats(150001, 9, Distribution::normal());
  const auto b = random_floats(150001, 10, Distribution::normal());
  const NormalizationReference reference(shape, x.data(), w.data(), b.data(), 3);
  // Three pieces per row: 65536, 65536 and 18929 elements; none crosses a row.
  ASSERT_EQ(reference.num_pieces(), 6);
  const int64_t begins[] = {0, 65536, 131072, 150001, 215537, 281073};
  const int64_t ends[] = {65536, 131072, 150001, 215537, 281073, 300002};
  for (int64_t p = 0; p < 6; ++p) {
    EXPECT_EQ(reference.piece_begin(p), begins[p]);
    EXPECT_EQ(reference.piece_end(p), ends[p]);
  }
  expect_all_near(all_expected(reference), naive_reference(shape, x, w, b), 1e-9);
}

TEST(Reference, LongGroupsWithChannelsCrossingPieces) {
  // Groups of 3 channels x 50000 = 150000 elements, pieces of 65536: piece 1 starts 15536
  // elements into channel 1 and crosses into channel 2 at element 100000 of the group.
  const ProblemShape shape = group_norm_shape({2, 6, 50000}, 2);
  const auto x = random_floats(shape.num_elements, 11, Distribution::normal(-3.0, 2.0));
  const auto w = random_floats(6, 12, Distribution::normal());
  const auto b = random_floats(6, 13, Distribution::normal());
  const NormalizationReference reference(shape, x.data(), w.data(), b.data(), 2);
  EXPECT_EQ(reference.num_pieces(), 4 * 3);  // 65536 + 65536 + 18928 per group
  EXPECT_EQ(reference.piece_begin(1), 65536);
  EXPECT_EQ(reference.piece_end(1), 131072);
  expect_all_near(all_expected(reference), naive_reference(shape, x, w, b), 1e-9);
}

TEST(Reference, GeluScaleMatchesNaiveLoopOnRandomData) {
  const ProblemShape shape =
      make_problem_shape(Op::layer_norm_gelu_scale, {300, 64}, {64}, 0, 1e-5, -1.5, true);
  const auto x = random_floats(shape.num_elements, 14, Distribution::uniform());
  const auto w = random_floats(64, 15, Distribution::normal());
  const auto b = random_floats(64, 16, Distribution::normal());
  expect_all_near(expected_of(shape, x, w, b, 2), naive_reference(shape, x, w, b), 1e-12);
}

}  // namespace
}  // namespace normbench
