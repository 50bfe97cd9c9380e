// Verification's rule as float32 bounds for the device: never stricter than the host's float64
// rule, more lenient only within the bound's last floats, NaN and infinities as the rule has
// them, and laid out as the outputs are on the device.
#include "app/check/tolerance_bounds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "app/check/verify.hpp"
#include "app/config/config.hpp"
#include "app/run/problem_tensors.hpp"
#include "reference/low_precision.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// The worker's test of one element (app/device/device_checks.cu).
bool inside(float lower, float upper, float y) {
  return std::isnan(lower) ? std::isnan(y) : lower <= y && y <= upper;
}

// `steps` floats from y toward `toward`.
float floats_away(float y, float toward, int steps) {
  for (int i = 0; i < steps; ++i) y = std::nextafter(y, toward);
  return y;
}

TEST(ToleranceBounds, HoldWhatTheRulePassesAndNoMoreThanTheBoundsLastFloats) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const Tolerance tolerances[] = {{1e-5, 1e-5}, {0x1p-7, 0x1p-6}, {0.0, 0.0}};
  int passed = 0, failed = 0;
  for (const Tolerance& tolerance : tolerances)
    for (int i = 0; i < 2000; ++i) {
      const double ref = unit(random) * std::pow(10.0, static_cast<int>(random() % 12) - 6);
      const double allowance = i % 3 == 0 ? std::fabs(unit(random)) * 1e-4 : 0.0;
      float lower = 0.0f, upper = 0.0f;
      element_bounds(ref, tolerance, allowance, lower, upper);
      const double bound = tolerance.atol + tolerance.rtol * std::fabs(ref) + allowance;
      // Floats around both edges of the rule's interval, and the reference itself.
      for (double edge : {ref - bound, ref + bound, ref})
        for (int step = -4; step <= 4; ++step) {
          const float near = static_cast<float>(edge);
          const float y =
              step < 0 ? floats_away(near, -kInf, -step) : floats_away(near, kInf, step);
          const bool rule = within_tolerance(y, ref, tolerance, allowance);
          if (rule) {
            EXPECT_TRUE(inside(lower, upper, y)) << ref << " " << y;
            ++passed;
          } else if (inside(lower, upper, y)) {
            // Lenient only within two floats of the rule's edge.
            const double ulp = std::nextafter(std::fabs(y), kInf) - std::fabs(y);
            const double beyond =
                std::min(std::fabs(y - (ref - bound)), std::fabs(y - (ref + bound)));
            EXPECT_LE(beyond, 2.0 * ulp) << ref << " " << y;
          } else {
            ++failed;
          }
        }
    }
  EXPECT_GT(passed, 1000);  // both sides of the edge were tried
  EXPECT_GT(failed, 1000);
}

TEST(ToleranceBounds, NonFiniteReferencesPassOnlyThemselves) {
  float lower = 0.0f, upper = 0.0f;
  element_bounds(std::nan(""), {1e-5, 1e-5}, 0.0, lower, upper);
  EXPECT_TRUE(inside(lower, upper, kNaN));
  EXPECT_FALSE(inside(lower, upper, 0.0f));
  EXPECT_FALSE(inside(lower, upper, kInf));
  element_bounds(-std::numeric_limits<double>::infinity(), {1e-5, 1e-5}, 0.0, lower, upper);
  EXPECT_TRUE(inside(lower, upper, -kInf));
  EXPECT_FALSE(inside(lower, upper, kInf));
  EXPECT_FALSE(inside(lower, upper, kNaN));
  EXPECT_FALSE(inside(lower, upper, -3.4e38f));
  // A NaN output where the reference is finite: outside.
  element_bounds(1.0, {1e-5, 1e-5}, 0.0, lower, upper);
  EXPECT_FALSE(inside(lower, upper, kNaN));
}

// A channels-last bfloat16 GroupNorm: the bounds go into their slots in y's device layout, and
// the reference rounded to bfloat16 (the best output) lies inside them everywhere, NaN nowhere.
TEST(ToleranceBounds, AreEncodedInTheOutputsLayout) {
  const ProblemConfig p = testing::first_problem(R"({"name":"t","defaults":{"dtype":"bfloat16"},
      "problems":[{"id":"g","op":"group_norm","shape":[2,8,3,5],"groups":4,
                   "layout":"nhwc"}]})");
  const SharedLayout l = shared_layout(p.shape);
  std::vector<char> shared(l.end);
  ProblemTensors tensors(p.shape, shared.data());
  fill_inputs(p, 3, tensors.inputs(), 1);
  tensors.encode_inputs(1);
  const NormalizationReference reference(p.shape, tensors.reference_inputs(), 1);
  ASSERT_TRUE(tensors.encode_bounds(reference, p.tolerances(), 1));

  const int64_t n = p.shape.num_elements;
  std::vector<float> lower(static_cast<size_t>(n)), upper(static_cast<size_t>(n));
  tolerance_bounds(reference, Output::y, p.tolerances(), lower.data(), upper.data(), 1);
  HostTensor lower_decoded(tensor_shape(p.shape, TensorKind::data));
  decode_tensor(shared.data() + l.lower_bound(Output::y).offset, bounds_format(p.shape, Output::y),
                lower_decoded, 1);
  std::vector<double> expected(static_cast<size_t>(n));
  for (int64_t piece = 0; piece < reference.num_pieces(Output::y); ++piece) {
    const int64_t begin = reference.piece_begin(Output::y, piece);
    reference.expected(Output::y, begin, reference.piece_end(Output::y, piece) - begin,
                       expected.data() + begin);
  }
  const auto* device_lower =
      reinterpret_cast<const float*>(shared.data() + l.lower_bound(Output::y).offset);
  const auto* device_upper =
      reinterpret_cast<const float*>(shared.data() + l.upper_bound(Output::y).offset);
  // Channels-last on the device: (N, H, W, C) of the logical (N, C, H, W).
  const int64_t channels = 8, positions = 15;
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(lower_decoded.begin()[i], lower[static_cast<size_t>(i)]);
    const int64_t sample = i / (channels * positions), channel = i / positions % channels;
    const int64_t device = (sample * positions + i % positions) * channels + channel;
    EXPECT_EQ(device_lower[device], lower[static_cast<size_t>(i)]);
    const float best = round_to_dtype(expected[static_cast<size_t>(i)], DType::bfloat16);
    EXPECT_TRUE(inside(device_lower[device], device_upper[device], best)) << i;
    EXPECT_FALSE(inside(device_lower[device], device_upper[device], kNaN)) << i;
  }
  EXPECT_EQ(l.lower_bound(Output::y).bytes, static_cast<size_t>(n) * sizeof(float));
  EXPECT_EQ(l.lower_bound(Output::sum).bytes, 0u);
  EXPECT_LE(l.bounds_begin, l.lower_bound(Output::y).offset);
  // Reserved, not counted: the bounds are written only for kernels that need them.
  EXPECT_LT(host_bytes_needed(p.shape), l.end);
}

}  // namespace
}  // namespace normbench
