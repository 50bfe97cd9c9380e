// Reproducible inputs: a pure function of (seed, tensor name, index), whatever the threads or
// chunking, with the distributions' documented ranges and moments.
#include "app/inputs/inputs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <vector>

#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

std::vector<float> draw(const Distribution& dist, uint64_t key, int64_t n, int64_t first = 0) {
  std::vector<float> out(static_cast<size_t>(n));
  generate(dist, key, first, n, out.data());
  return out;
}

std::vector<float> draw_tensor(const Distribution& dist, uint64_t key, int64_t n, int threads) {
  HostTensor tensor({n});
  generate_tensor(dist, key, tensor, threads);
  return std::vector<float>(tensor.begin(), tensor.begin() + n);
}

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

int64_t count_equal(const std::vector<float>& a, const std::vector<float>& b) {
  int64_t same = 0;
  for (size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  return same;
}

struct Moments {
  double mean = 0.0, stdev = 0.0, min = 0.0, max = 0.0;
};

Moments moments(const std::vector<float>& v) {
  Moments m;
  double sum = 0.0, sum_sq = 0.0;
  m.min = m.max = v.at(0);
  for (float f : v) {
    sum += f;
    sum_sq += static_cast<double>(f) * f;
    m.min = std::min(m.min, static_cast<double>(f));
    m.max = std::max(m.max, static_cast<double>(f));
  }
  const double n = static_cast<double>(v.size());
  m.mean = sum / n;
  m.stdev = std::sqrt(std::max(0.0, sum_sq / n - m.mean * m.mean));
  return m;
}

// 2.5 chunks of the generator's 1 Mi-element work split, so threads really share the work.
constexpr int64_t kManyElements = (1 << 20) * 5 / 2;
constexpr int64_t kSamples = 1000000;

TEST(Inputs, PinnedValuesOfTheSplitMix64Stream) {
  // SplitMix64's published first outputs for state 0 are 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4
  // and 0x06c45d188009454f; a uniform float is their top 24 bits / 2^24. The NumPy port of the
  // generator must reproduce exactly these.
  const auto u = draw(Distribution::uniform(), 0, 3);
  EXPECT_EQ(u[0], 0xe220a8 / 16777216.0f);
  EXPECT_EQ(u[1], 0x6e789e / 16777216.0f);
  EXPECT_EQ(u[2], 0x06c45d / 16777216.0f);
  // Seed 42's "x" (stream key 0x2e76ecd0d54d0d0e, computed independently in Python).
  EXPECT_EQ(tensor_stream_key(42, "x"), 0x2e76ecd0d54d0d0eull);
  const auto x = draw(Distribution::uniform(), tensor_stream_key(42, "x"), 4);
  EXPECT_EQ(x[0], 13882681 / 16777216.0f);
  EXPECT_EQ(x[1], 988708 / 16777216.0f);
  EXPECT_EQ(x[2], 10235256 / 16777216.0f);
  EXPECT_EQ(x[3], 8198690 / 16777216.0f);
  // Box-Muller, cosine branch, of seed 42's "weight".
  const auto w = draw(Distribution::normal(), tensor_stream_key(42, "weight"), 3);
  EXPECT_EQ(w[0], 0.08427970111370087f);
  EXPECT_EQ(w[1], -0.7959992289543152f);
  EXPECT_EQ(w[2], -0.5197914242744446f);
}

TEST(Inputs, SameValuesForAnyThreadCount) {
  for (const Distribution& dist : {Distribution::uniform(), Distribution::normal(3.0, 0.5)}) {
    const uint64_t key = tensor_stream_key(7, "x");
    const auto one = draw_tensor(dist, key, kManyElements, 1);
    EXPECT_TRUE(bitwise_equal(one, draw_tensor(dist, key, kManyElements, 3)));
    EXPECT_TRUE(bitwise_equal(one, draw_tensor(dist, key, kManyElements, 7)));
    EXPECT_TRUE(bitwise_equal(one, draw(dist, key, kManyElements)));
  }
}

TEST(Inputs, SubRangesEqualTheWhole) {
  const uint64_t key = tensor_stream_key(1, "bias");
  for (const Distribution& dist : {Distribution::uniform(-1, 2), Distribution::normal()}) {
    const auto whole = draw(dist, key, 10000);
    std::vector<float> pieces;
    const int64_t bounds[] = {0, 1, 2, 999, 1000, 5003, 10000};  // uneven, odd-offset pieces
    for (size_t b = 0; b + 1 < std::size(bounds); ++b) {
      const auto part = draw(dist, key, bounds[b + 1] - bounds[b], bounds[b]);
      pieces.insert(pieces.end(), part.begin(), part.end());
    }
    EXPECT_TRUE(bitwise_equal(whole, pieces));
  }
}

TEST(Inputs, DifferentSeedsAndNamesGiveDifferentStreams) {
  const auto base = draw(Distribution::uniform(), tensor_stream_key(42, "x"), 10000);
  const auto other_seed = draw(Distribution::uniform(), tensor_stream_key(43, "x"), 10000);
  const auto other_name = draw(Distribution::uniform(), tensor_stream_key(42, "weight"), 10000);
  // Independent 24-bit values coincide with probability 2^-24 each: essentially never.
  EXPECT_LE(count_equal(base, other_seed), 2);
  EXPECT_LE(count_equal(base, other_name), 2);
  EXPECT_NE(tensor_stream_key(42, "x"), tensor_stream_key(42, "bias"));
  EXPECT_NE(tensor_stream_key(0, "x"), tensor_stream_key(1, "x"));
}

TEST(Inputs, UnitUniformHas24BitResolutionInZeroOne) {
  const auto u = draw(Distribution::uniform(), tensor_stream_key(5, "x"), kSamples);
  for (float v : u) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
    const float scaled = v * 16777216.0f;
    ASSERT_EQ(scaled, std::floor(scaled)) << v << " is not a multiple of 2^-24";
  }
  const Moments m = moments(u);
  EXPECT_NEAR(m.mean, 0.5, 0.002);  // stdev of the mean: 0.0003
  EXPECT_NEAR(m.stdev, std::sqrt(1.0 / 12.0), 0.002);
  EXPECT_LT(m.min, 1e-4);
  EXPECT_GT(m.max, 1.0 - 1e-4);
}

TEST(Inputs, NormalMoments) {
  const auto z = draw(Distribution::normal(), tensor_stream_key(5, "x"), kSamples);
  const Moments m = moments(z);
  EXPECT_NEAR(m.mean, 0.0, 0.005);  // stdev of the mean: 0.001
  EXPECT_NEAR(m.stdev, 1.0, 0.005);
  int64_t within_one = 0, beyond_three = 0;
  for (float v : z) {
    ASSERT_TRUE(std::isfinite(v));
    within_one += std::fabs(v) < 1.0f;
    beyond_three += std::fabs(v) > 3.0f;
  }
  EXPECT_NEAR(static_cast<double>(within_one) / kSamples, 0.682689, 0.003);
  EXPECT_NEAR(static_cast<double>(beyond_three) / kSamples, 0.0026998, 0.0005);
}

// The config check refuses normal distributions whose draws could overflow their type, by the
// largest |z| this generator can draw: Box-Muller from a first uniform of at least 2^-53.
TEST(Inputs, NormalDrawsStayWithinTheBoundTheConfigCheckUses) {
  const double largest = std::sqrt(-2.0 * std::log(0x1p-53));
  EXPECT_LE(largest, kLargestNormalDeviate);
  EXPECT_LT(kLargestNormalDeviate - largest, 1e-4);  // and the bound is tight
  const auto z = draw(Distribution::normal(), tensor_stream_key(6, "x"), kSamples);
  for (float v : z) ASSERT_LE(std::fabs(v), kLargestNormalDeviate);
}

TEST(Inputs, UniformLowHighTransformsTheUnitStream) {
  const uint64_t key = tensor_stream_key(9, "x");
  const auto unit = draw(Distribution::uniform(), key, kSamples);
  const auto scaled = draw(Distribution::uniform(-3.0, 5.0), key, kSamples);
  for (size_t i = 0; i < unit.size(); ++i) {
    ASSERT_GE(scaled[i], -3.0f);
    ASSERT_LT(scaled[i], 5.0f);
    ASSERT_NEAR(scaled[i], -3.0 + 8.0 * unit[i], 1e-6);
  }
  EXPECT_NEAR(moments(scaled).mean, 1.0, 0.02);
}

TEST(Inputs, UniformStaysBelowHighAfterRounding) {
  // Near 1e8 floats are 8 apart: low + span * u rounds up to high for u close to 1.
  const auto v = draw(Distribution::uniform(1e8 - 64, 1e8), tensor_stream_key(3, "x"), 100000);
  for (float f : v) ASSERT_LT(f, 1e8f);
}

TEST(Inputs, NormalMeanStdTransformsTheStandardStream) {
  const uint64_t key = tensor_stream_key(11, "weight");
  const auto z = draw(Distribution::normal(), key, 100000);
  const auto shifted = draw(Distribution::normal(1000.0, 2.0), key, 100000);
  for (size_t i = 0; i < z.size(); ++i) ASSERT_NEAR(shifted[i], 1000.0 + 2.0 * z[i], 1e-3);
  const auto zero_std = draw(Distribution::normal(-4.0, 0.0), key, 1000);
  for (float f : zero_std) ASSERT_EQ(f, -4.0f);
}

TEST(Inputs, OutliersReplaceEveryKthElementOfTheStream) {
  const uint64_t key = tensor_stream_key(5, "x");
  for (const Distribution& base : {Distribution::normal(), Distribution::uniform(-1, 1)}) {
    Distribution spiked = base;
    spiked.outlier_every = 7;
    spiked.outlier_value = 100.25;
    for (int64_t first : {0, 3, 7, 1000}) {
      const auto plain = draw(base, key, 50, first);
      const auto with = draw(spiked, key, 50, first);
      for (int64_t j = 0; j < 50; ++j) {
        if ((first + j) % 7 == 0)
          ASSERT_EQ(with[j], 100.25f) << "element " << first + j;
        else
          ASSERT_EQ(with[j], plain[j]) << "element " << first + j;
      }
    }
    // Chunks and threads agree with the whole.
    const auto whole = draw(spiked, key, kManyElements);
    EXPECT_TRUE(bitwise_equal(whole, draw_tensor(spiked, key, kManyElements, 3)));
  }
}

TEST(Inputs, ConstantOnesAndZeros) {
  for (double value : {0.0, 1.0, -7.3}) {
    const auto v = draw(Distribution::constant(value), 123, 1000, 17);
    for (float f : v) ASSERT_EQ(f, static_cast<float>(value));
  }
}

TEST(Inputs, FillInputsShapesAndStreams) {
  const RunConfig config = parse_config(R"({"name": "t", "problems": [
      {"id": "ln", "op": "layer_norm", "shape": [3, 4, 5], "normalized_shape": [4, 5]},
      {"id": "gn", "op": "group_norm", "shape": [2, 6, 3], "groups": 2,
       "inputs": {"weight": "ones", "bias": "zeros"}},
      {"id": "plain", "op": "layer_norm", "shape": [2, 8], "normalized_shape": [8],
       "affine": false}]})",
                                        "t.json");
  const ProblemInputs ln = make_inputs(config.problems[0], 42, 2);
  EXPECT_EQ(ln.x.shape, (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(ln.weight.shape, (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(ln.bias.shape, (std::vector<int64_t>{4, 5}));
  // Each tensor is its own named stream of the trial's seed.
  const auto x = draw(Distribution::uniform(), tensor_stream_key(42, "x"), 60);
  EXPECT_EQ(std::memcmp(ln.x.begin(), x.data(), 60 * sizeof(float)), 0);
  const auto w = draw(Distribution::normal(), tensor_stream_key(42, "weight"), 20);
  EXPECT_EQ(std::memcmp(ln.weight.begin(), w.data(), 20 * sizeof(float)), 0);
  const auto b = draw(Distribution::normal(), tensor_stream_key(42, "bias"), 20);
  EXPECT_EQ(std::memcmp(ln.bias.begin(), b.data(), 20 * sizeof(float)), 0);

  const ProblemInputs gn = make_inputs(config.problems[1], 42, 1);
  EXPECT_EQ(gn.weight.shape, (std::vector<int64_t>{6}));  // per channel
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(gn.weight.begin()[i], 1.0f);
    EXPECT_EQ(gn.bias.begin()[i], 0.0f);
  }

  const ProblemInputs plain = make_inputs(config.problems[2], 42, 1);
  EXPECT_EQ(plain.x.size, 16);
  EXPECT_EQ(plain.weight.size, 0);
  EXPECT_EQ(plain.bias.size, 0);

  // The next trial's seed refills the same buffers with other values.
  ProblemInputs reused = make_inputs(config.problems[0], 42, 1);
  const float* buffer = reused.x.begin();
  fill_inputs(config.problems[0], 43, reused, 1);
  EXPECT_EQ(reused.x.begin(), buffer);
  const auto x43 = draw(Distribution::uniform(), tensor_stream_key(43, "x"), 60);
  EXPECT_EQ(std::memcmp(reused.x.begin(), x43.data(), 60 * sizeof(float)), 0);
}

}  // namespace
}  // namespace normbench
