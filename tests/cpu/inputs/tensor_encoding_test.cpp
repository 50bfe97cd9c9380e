// Between host floats in the logical order and the device's bytes: element types, the
// channels-last permutation, and the shared-memory slots a problem gets.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "app/inputs/tensor_encoding.hpp"
#include "app/worker/shared_tensors.hpp"
#include "reference/low_precision.hpp"

namespace normbench {
namespace {

HostTensor counting(std::vector<int64_t> shape, float step = 0.25f) {
  HostTensor t(std::move(shape));
  for (int64_t i = 0; i < t.size; ++i) t.begin()[i] = static_cast<float>(i) * step - 3.0f;
  return t;
}

TEST(TensorEncoding, RoundTensorMakesEveryValueRepresentable) {
  HostTensor t({1000});
  for (int64_t i = 0; i < t.size; ++i) t.begin()[i] = 1.0f + static_cast<float>(i) * 1e-4f;
  round_tensor(t, DType::bfloat16, 2);
  for (int64_t i = 0; i < t.size; ++i) {
    const float v = t.begin()[i];
    EXPECT_EQ(bfloat16_value(bfloat16_bits(v)), v);
    EXPECT_EQ(round_to_dtype(v, DType::bfloat16), v);
  }
  HostTensor same = counting({8});
  round_tensor(same, DType::float32, 1);  // float32: nothing to do
  EXPECT_EQ(same.begin()[5], 5 * 0.25f - 3.0f);
}

TEST(TensorEncoding, SixteenBitTypesRoundTrip) {
  for (DType dtype : {DType::bfloat16, DType::float16}) {
    HostTensor t = counting({3, 5});
    round_tensor(t, dtype, 1);
    std::vector<uint16_t> bytes(15);
    encode_tensor(t, {dtype, false}, bytes.data(), 1);
    EXPECT_EQ(bytes[4],
              dtype == DType::float16 ? float16_bits(t.begin()[4]) : bfloat16_bits(t.begin()[4]));
    HostTensor back({3, 5});
    decode_tensor(bytes.data(), {dtype, false}, back, 1);
    EXPECT_EQ(0, std::memcmp(back.begin(), t.begin(), t.bytes())) << dtype_name(dtype);
  }
}

TEST(TensorEncoding, ChannelsLastPutsChannelsInnermost) {
  // (N, C, H, W) = (2, 3, 2, 2): logical (n, c, s) lives at (n * 4 + s) * 3 + c.
  const HostTensor t = counting({2, 3, 2, 2}, 1.0f);
  std::vector<float> memory(24);
  encode_tensor(t, {DType::float32, true}, memory.data(), 2);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 3; ++c)
      for (int64_t s = 0; s < 4; ++s)
        EXPECT_EQ(memory[static_cast<size_t>((n * 4 + s) * 3 + c)], t.begin()[(n * 3 + c) * 4 + s]);
  HostTensor back({2, 3, 2, 2});
  decode_tensor(memory.data(), {DType::float32, true}, back, 1);
  EXPECT_EQ(0, std::memcmp(back.begin(), t.begin(), t.bytes()));

  std::vector<uint16_t> half(24);  // and with bfloat16 elements
  encode_tensor(t, {DType::bfloat16, true}, half.data(), 1);
  EXPECT_EQ(bfloat16_value(half[(1 * 4 + 3) * 3 + 2]), t.begin()[(1 * 3 + 2) * 4 + 3]);
}

TEST(SharedLayout, SlotsFollowTheElementTypesAndOutputs) {
  const ProblemShape rms = make_problem_shape(Op::add_rms_norm, {4, 6}, {6}, 0, 1e-6, 1.0, true,
                                              {DType::bfloat16, DType::float32});
  const SharedLayout l = shared_layout(rms);
  EXPECT_EQ(l.input(Input::x).bytes, 48u);
  EXPECT_EQ(l.input(Input::residual).bytes, 48u);
  EXPECT_EQ(l.input(Input::weight).bytes, 24u);  // float32 weight
  EXPECT_EQ(l.input(Input::bias).bytes, 0u);     // RMSNorm has none
  EXPECT_EQ(l.output(Output::y).bytes, 48u);
  EXPECT_EQ(l.output(Output::sum).bytes, 48u);
  EXPECT_EQ(l.sample(Output::sum).bytes, 48u);
  EXPECT_EQ(l.output(Output::sum).offset % 4096, 0u);

  const ProblemShape ln = make_problem_shape(Op::layer_norm, {4, 6}, {6}, 0, 1e-5, 1.0, true);
  const SharedLayout classic = shared_layout(ln);
  EXPECT_EQ(classic.input(Input::x).bytes, 96u);
  EXPECT_EQ(classic.input(Input::residual).bytes, 0u);
  EXPECT_EQ(classic.input(Input::bias).bytes, 24u);
  EXPECT_EQ(classic.output(Output::sum).bytes, 0u);
}

TEST(ProblemShapeFormat, BytesCountElementSizes) {
  const ProblemShape rms = make_problem_shape(Op::rms_norm, {32768, 4096}, {4096}, 0, 1e-6, 1.0,
                                              true, {DType::bfloat16, DType::bfloat16});
  EXPECT_EQ(rms.min_bytes(), 2 * 2 * 32768 * 4096 + 2 * 4096);  // x, y; weight, no bias
  EXPECT_FALSE(rms.has_bias);
  EXPECT_FALSE(rms.is_classic());
  const ProblemShape add = make_problem_shape(Op::add_rms_norm, {8, 16}, {16}, 0, 1e-6, 1.0, false,
                                              {DType::float16, DType::float16});
  EXPECT_EQ(add.read_bytes(), 2 * 2 * 8 * 16);   // x and residual
  EXPECT_EQ(add.write_bytes(), 2 * 2 * 8 * 16);  // y and s
  EXPECT_TRUE(add.has_residual());
  const ProblemShape no_bias =
      make_problem_shape(Op::layer_norm, {8, 16}, {16}, 0, 1e-5, 1.0, true,
                         {DType::float32, DType::float32, Layout::nchw, false});
  EXPECT_FALSE(no_bias.has_bias);
  EXPECT_FALSE(no_bias.is_classic());
  EXPECT_EQ(no_bias.read_bytes(), 4 * (8 * 16 + 16));
  const ProblemShape nhwc = make_problem_shape(Op::group_norm, {2, 8, 4, 4}, {}, 4, 1e-5, 1.0, true,
                                               {DType::float32, DType::float32, Layout::nhwc});
  EXPECT_TRUE(nhwc.channels_last());
  EXPECT_EQ(nhwc.segment_size, 2 * 16);
  const ProblemShape ln_nhwc = make_problem_shape(Op::layer_norm, {2, 8}, {8}, 0, 1e-5, 1.0, true,
                                                  {DType::float32, DType::float32, Layout::nhwc});
  EXPECT_FALSE(ln_nhwc.channels_last());  // only GroupNorm has a layout
}

}  // namespace
}  // namespace normbench
