// The harness's tensors over shared memory: views where the device format is the floats
// themselves (no copy of B's 7.5 GB), encoded copies otherwise, and outputs decoded back.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "app/config/config.hpp"
#include "app/run/problem_tensors.hpp"
#include "reference/low_precision.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

TEST(ProblemTensors, ClassicInputsAreTheSharedSlotsThemselves) {
  const ProblemConfig p = testing::first_problem(
      R"({"name":"t","problems":[{"id":"a","op":"layer_norm","shape":[4,8],"normalized_shape":[8]}]})");
  std::vector<char> shared(shared_layout(p.shape).end);
  ProblemTensors tensors(p.shape, shared.data());
  const SharedLayout l = shared_layout(p.shape);
  EXPECT_EQ(reinterpret_cast<char*>(tensors.inputs().x.begin()),
            shared.data() + l.input(Input::x).offset);
  EXPECT_EQ(reinterpret_cast<char*>(tensors.inputs().bias.begin()),
            shared.data() + l.input(Input::bias).offset);
  fill_inputs(p, 42, tensors.inputs(), 1);
  EXPECT_EQ(reinterpret_cast<char*>(tensors.inputs().x.begin()),
            shared.data() + l.input(Input::x).offset)
      << "fill_inputs must reuse the views";
  // The worker's y slot is what verification reads.
  reinterpret_cast<float*>(shared.data() + l.output(Output::y).offset)[3] = 1.5f;
  const OutputValues out = tensors.decode_outputs(ProblemTensors::Slots::launch, 1);
  EXPECT_EQ(out[Output::y][3], 1.5f);
  EXPECT_EQ(out[Output::sum], nullptr);
}

TEST(ProblemTensors, LowPrecisionInputsAreEncodedAndOutputsDecoded) {
  const ProblemConfig p = testing::first_problem(R"({"name":"t","defaults":{"dtype":"bfloat16"},
      "problems":[{"id":"a","op":"add_rms_norm","shape":[3,8],"normalized_shape":[8]}]})");
  const SharedLayout l = shared_layout(p.shape);
  std::vector<char> shared(l.end);
  ProblemTensors tensors(p.shape, shared.data());
  fill_inputs(p, 7, tensors.inputs(), 1);
  tensors.encode_inputs(1);
  const auto* x_bits = reinterpret_cast<const uint16_t*>(shared.data() + l.input(Input::x).offset);
  const auto* r_bits =
      reinterpret_cast<const uint16_t*>(shared.data() + l.input(Input::residual).offset);
  for (int64_t i = 0; i < p.shape.num_elements; ++i) {
    EXPECT_EQ(bfloat16_value(x_bits[i]), tensors.inputs().x.begin()[i]);
    EXPECT_EQ(bfloat16_value(r_bits[i]), tensors.inputs().residual.begin()[i]);
  }
  EXPECT_EQ(tensors.inputs().bias.size, 0);
  const ReferenceInputs ref = tensors.reference_inputs();
  EXPECT_NE(ref.residual, nullptr);
  EXPECT_EQ(ref.bias, nullptr);

  auto* y_bits = reinterpret_cast<uint16_t*>(shared.data() + l.sample(Output::y).offset);
  auto* s_bits = reinterpret_cast<uint16_t*>(shared.data() + l.sample(Output::sum).offset);
  y_bits[5] = bfloat16_bits(-2.5f);
  s_bits[6] = bfloat16_bits(0.125f);
  const OutputValues out = tensors.decode_outputs(ProblemTensors::Slots::sample, 1);
  EXPECT_EQ(out[Output::y][5], -2.5f);
  EXPECT_EQ(out[Output::sum][6], 0.125f);
  EXPECT_EQ(tensors.output(Output::sum, ProblemTensors::Slots::sample).begin()[6], 0.125f);
}

TEST(ProblemTensors, ChannelsLastOutputsAreReadInTheLogicalOrder) {
  const ProblemConfig p =
      testing::first_problem(R"({"name":"t","problems":[{"id":"g","op":"group_norm",
      "shape":[1,4,3],"groups":2,"layout":"nhwc","dtype":"float16"}]})");
  const SharedLayout l = shared_layout(p.shape);
  std::vector<char> shared(l.end);
  ProblemTensors tensors(p.shape, shared.data());
  // Logical y[0][c][s] at memory s * 4 + c.
  auto* y_bits = reinterpret_cast<uint16_t*>(shared.data() + l.output(Output::y).offset);
  for (int s = 0; s < 3; ++s)
    for (int c = 0; c < 4; ++c) y_bits[s * 4 + c] = float16_bits(static_cast<float>(10 * c + s));
  const OutputValues out = tensors.decode_outputs(ProblemTensors::Slots::launch, 1);
  for (int c = 0; c < 4; ++c)
    for (int s = 0; s < 3; ++s)
      EXPECT_EQ(out[Output::y][c * 3 + s], static_cast<float>(10 * c + s));
}

TEST(ProblemTensors, BackwardTensorsAreEncodedAndTheirOutputsDecoded) {
  const ProblemConfig p = testing::first_problem(R"({"name":"t","problems":[{"id":"b",
      "op":"layer_norm_backward","shape":[3,8],"normalized_shape":[8],"dtype":"bfloat16",
      "param_dtype":"float32"}]})");
  const SharedLayout l = shared_layout(p.shape);
  std::vector<char> shared(l.end);
  ProblemTensors tensors(p.shape, shared.data());
  fill_inputs(p, 9, tensors.inputs(), 1);
  tensors.encode_inputs(1);
  // dy in bfloat16 bits; the float32 statistics are their shared slots themselves.
  const auto* dy_bits =
      reinterpret_cast<const uint16_t*>(shared.data() + l.input(Input::dy).offset);
  for (int64_t i = 0; i < p.shape.num_elements; ++i)
    EXPECT_EQ(bfloat16_value(dy_bits[i]), tensors.inputs().dy.begin()[i]);
  EXPECT_EQ(reinterpret_cast<char*>(tensors.inputs().rstd.begin()),
            shared.data() + l.input(Input::rstd).offset);
  const ReferenceInputs ref = tensors.reference_inputs();
  EXPECT_EQ(ref.dy, tensors.inputs().dy.begin());
  EXPECT_EQ(ref.bias, nullptr);

  reinterpret_cast<uint16_t*>(shared.data() + l.output(Output::dx).offset)[2] =
      bfloat16_bits(0.75f);
  reinterpret_cast<float*>(shared.data() + l.output(Output::grad_weight).offset)[7] = -3.25f;
  reinterpret_cast<float*>(shared.data() + l.output(Output::grad_bias).offset)[0] = 0.5f;
  const OutputValues out = tensors.decode_outputs(ProblemTensors::Slots::launch, 1);
  EXPECT_EQ(out[Output::y], nullptr);
  EXPECT_EQ(out[Output::dx][2], 0.75f);
  EXPECT_EQ(out[Output::grad_weight][7], -3.25f);
  EXPECT_EQ(out[Output::grad_bias][0], 0.5f);
  EXPECT_EQ(tensors.output(Output::grad_weight, ProblemTensors::Slots::launch).shape,
            (std::vector<int64_t>{8}));
}

// ds_out reaches the reference of the launch's inputs and of the fresh ones swapped in at the
// same addresses: a reference without it would fail every right add_rms_norm_backward kernel.
TEST(ProblemTensors, DsOutReachesTheReferenceOfTheInputsAndOfTheFreshOnes) {
  const ProblemConfig p = testing::first_problem(R"({"name":"t","problems":[{"id":"s",
      "op":"add_rms_norm_backward","shape":[3,8],"normalized_shape":[8],"dtype":"float16"}]})");
  const SharedLayout l = shared_layout(p.shape);
  std::vector<char> shared(l.end);
  ProblemTensors tensors(p.shape, shared.data());
  fill_inputs(p, 9, tensors.inputs(), 1);
  tensors.encode_inputs(1);
  const auto* ds_out_bits =
      reinterpret_cast<const uint16_t*>(shared.data() + l.input(Input::ds_out).offset);
  for (int64_t i = 0; i < p.shape.num_elements; ++i)
    EXPECT_EQ(float16_value(ds_out_bits[i]), tensors.inputs().ds_out.begin()[i]);
  const ReferenceInputs ref = tensors.reference_inputs();
  EXPECT_EQ(ref.ds_out, tensors.inputs().ds_out.begin());
  EXPECT_EQ(ref.residual, nullptr);

  tensors.keep_inputs_as_fresh(1);
  const ReferenceInputs fresh = tensors.fresh_reference_inputs(1);
  ASSERT_NE(fresh.ds_out, nullptr);
  EXPECT_NE(fresh.ds_out, ref.ds_out);  // decoded from the fresh slot, not the launch's
  for (int64_t i = 0; i < p.shape.num_elements; ++i)
    EXPECT_EQ(fresh.ds_out[i], tensors.inputs().ds_out.begin()[i]) << i;
}

TEST(ProblemTensors, HostBytesCountTheCopies) {
  const ProblemConfig classic = testing::first_problem(
      R"({"name":"t","problems":[{"id":"a","op":"layer_norm","shape":[1024,1024],"normalized_shape":[1024]}]})");
  // The shared slots up to the bounds', which are reserved for the kernels that need them.
  EXPECT_EQ(host_bytes_needed(classic.shape), shared_layout(classic.shape).bounds_begin);
  const ProblemConfig low = testing::first_problem(R"({"name":"t","defaults":{"dtype":"float16"},
      "problems":[{"id":"a","op":"layer_norm","shape":[1024,1024],"normalized_shape":[1024]}]})");
  EXPECT_GT(host_bytes_needed(low.shape),
            shared_layout(low.shape).bounds_begin + 3 * 4 * 1024 * 1024 - 1);
}

}  // namespace
}  // namespace normbench
