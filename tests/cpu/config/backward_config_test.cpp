// Configs of the backward ops: the forward op's fields, dy drawn like x unless set, the
// tolerance of dweight and dbias in their own dtype, and the fields the forward op refuses
// refused here too, with the JSON path and what is allowed.
#include <gtest/gtest.h>

#include <string>

#include "app/config/config.hpp"
#include "app/util/errors.hpp"
#include "kernels/tensor_roles.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

ProblemConfig one(const std::string& problem, const std::string& defaults = "{}") {
  return testing::first_problem(
      R"({"name": "t", "defaults": )" + defaults + R"(, "problems": [)" + problem + "]}", "t.json");
}

std::string error_of(const std::string& problem) {
  try {
    one(problem);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(BackwardConfig, EachBackwardOpTakesItsForwardOpsGeometry) {
  const ProblemConfig ln = one(R"({"id": "ln", "op": "layer_norm_backward", "shape": [4, 6],
                                   "normalized_shape": [6], "bias": false})");
  EXPECT_EQ(ln.shape.op, Op::layer_norm_backward);
  EXPECT_EQ(ln.shape.forward_op(), Op::layer_norm);
  EXPECT_TRUE(ln.shape.is_backward());
  EXPECT_FALSE(ln.shape.has_bias);
  EXPECT_EQ(problem_outputs(ln.shape), (std::vector<Output>{Output::dx, Output::grad_weight}));
  EXPECT_EQ(ln.resolved.at("bias"), false);

  const ProblemConfig rms = one(R"({"id": "r", "op": "rms_norm_backward", "shape": [3, 8],
                                    "normalized_shape": [8]})");
  EXPECT_FALSE(rms.shape.centered());
  EXPECT_EQ(problem_inputs(rms.shape),
            (std::vector<Input>{Input::x, Input::weight, Input::dy, Input::rstd}));

  const ProblemConfig gn = one(R"({"id": "g", "op": "group_norm_backward", "shape": [2, 8, 5],
                                   "groups": 4, "layout": "nhwc", "dtype": "bfloat16"})");
  EXPECT_TRUE(gn.shape.grouped());
  EXPECT_TRUE(gn.shape.channels_last());
  EXPECT_EQ(gn.shape.segment_size, 10);
  EXPECT_EQ(gn.resolved.at("groups"), 4);
  // The bias is no input (no gradient depends on it); dbias is an output.
  EXPECT_EQ(problem_inputs(gn.shape),
            (std::vector<Input>{Input::x, Input::weight, Input::dy, Input::mean, Input::rstd}));
  EXPECT_EQ(gn.inputs.count("bias"), 0u);
  EXPECT_EQ(problem_outputs(gn.shape).back(), Output::grad_bias);

  // add_rms_norm's: x holds the forward's sum s; ds_out is the gradient that reached s.
  const ProblemConfig add = one(R"({"id": "s", "op": "add_rms_norm_backward", "shape": [3, 8],
                                    "normalized_shape": [8], "dtype": "float16"})");
  EXPECT_EQ(add.shape.forward_op(), Op::add_rms_norm);
  EXPECT_EQ(statistics_op(add.shape.op), Op::rms_norm);
  EXPECT_FALSE(add.shape.centered());
  EXPECT_FALSE(add.shape.has_bias);
  EXPECT_FALSE(add.shape.has_residual());
  EXPECT_EQ(problem_inputs(add.shape),
            (std::vector<Input>{Input::x, Input::weight, Input::dy, Input::ds_out, Input::rstd}));
  EXPECT_EQ(problem_outputs(add.shape), (std::vector<Output>{Output::dx, Output::grad_weight}));
  EXPECT_EQ(add.inputs.count("residual"), 0u);
  EXPECT_STREQ(input_name(Input::ds_out), "ds_out");
}

TEST(BackwardConfig, DyIsDrawnLikeXUnlessSet) {
  const ProblemConfig like_x = one(R"({"id": "a", "op": "layer_norm_backward", "shape": [2, 4],
                                       "normalized_shape": [4], "inputs": {"x": "normal"}})");
  EXPECT_EQ(like_x.resolved.at("inputs").at("dy"), like_x.resolved.at("inputs").at("x"));
  const ProblemConfig set = one(R"({"id": "a", "op": "layer_norm_backward", "shape": [2, 4],
                                    "normalized_shape": [4],
                                    "inputs": {"x": "normal", "dy": {"dist": "uniform", "low": -1, "high": 1}}})");
  EXPECT_EQ(set.inputs.at("dy").kind, Distribution::Kind::uniform);
  EXPECT_EQ(set.inputs.at("dy").a, -1.0);
  // Forward ops have no dy: a default for it is ignored, as residual is for layer_norm.
  const ProblemConfig forward = one(R"({"id": "f", "op": "layer_norm", "shape": [2, 4],
                                        "normalized_shape": [4]})",
                                    R"({"inputs": {"dy": "normal"}})");
  EXPECT_EQ(forward.inputs.count("dy"), 0u);
}

TEST(BackwardConfig, DsOutIsDrawnLikeXUnlessSet) {
  const ProblemConfig like_x = one(R"({"id": "a", "op": "add_rms_norm_backward", "shape": [2, 4],
                                       "normalized_shape": [4],
                                       "inputs": {"x": "normal", "dy": "uniform"}})");
  EXPECT_EQ(like_x.resolved.at("inputs").at("ds_out"), like_x.resolved.at("inputs").at("x"));
  EXPECT_NE(like_x.resolved.at("inputs").at("ds_out"), like_x.resolved.at("inputs").at("dy"));
  const ProblemConfig set = one(R"({"id": "a", "op": "add_rms_norm_backward", "shape": [2, 4],
                                    "normalized_shape": [4],
                                    "inputs": {"ds_out": {"dist": "constant", "value": 0.5}}})");
  EXPECT_EQ(set.inputs.at("ds_out").kind, Distribution::Kind::constant);
  EXPECT_EQ(set.inputs.at("ds_out").a, 0.5);
  // The other backward ops have no ds_out: a default for it is ignored.
  const ProblemConfig other = one(R"({"id": "r", "op": "rms_norm_backward", "shape": [2, 4],
                                      "normalized_shape": [4]})",
                                  R"({"inputs": {"ds_out": "normal"}})");
  EXPECT_EQ(other.inputs.count("ds_out"), 0u);
}

TEST(BackwardConfig, ParameterGradientsHaveTheToleranceOfTheirDtype) {
  const ProblemConfig mixed = one(R"({"id": "a", "op": "rms_norm_backward", "shape": [2, 4],
                                      "normalized_shape": [4], "dtype": "bfloat16",
                                      "param_dtype": "float32"})");
  EXPECT_EQ(mixed.tolerance.rtol, 0x1p-7);      // dx: bfloat16
  EXPECT_EQ(mixed.param_tolerance.rtol, 1e-5);  // dweight: float32
  EXPECT_EQ(mixed.resolved.at("param_tolerance").at("atol"), 1e-5);
  const ProblemConfig set = one(R"({"id": "a", "op": "rms_norm_backward", "shape": [2, 4],
                                    "normalized_shape": [4], "dtype": "bfloat16",
                                    "param_dtype": "float32", "tolerance": {"rtol": 0.01}})");
  EXPECT_EQ(set.tolerance.rtol, 0.01);  // a config's rtol holds for every output...
  EXPECT_EQ(set.param_tolerance.rtol, 0.01);
  EXPECT_EQ(set.param_tolerance.atol, 1e-5);  // ...and what it leaves out stays each dtype's
  const ProblemConfig forward = one(R"({"id": "f", "op": "rms_norm", "shape": [2, 4],
                                        "normalized_shape": [4]})");
  EXPECT_FALSE(forward.resolved.contains("param_tolerance"));
}

TEST(BackwardConfig, FieldsTheForwardOpRefusesAreRefused) {
  const std::string bias = error_of(R"({"id": "r", "op": "rms_norm_backward", "shape": [2, 4],
                                        "normalized_shape": [4], "bias": true})");
  EXPECT_NE(bias.find("t.json"), std::string::npos) << bias;
  EXPECT_NE(bias.find("/problems/0"), std::string::npos) << bias;
  EXPECT_NE(bias.find("bias"), std::string::npos) << bias;
  EXPECT_NE(bias.find("allowed"), std::string::npos) << bias;
  const std::string layout = error_of(R"({"id": "l", "op": "layer_norm_backward", "shape": [2, 4],
                                          "normalized_shape": [4], "layout": "nhwc"})");
  EXPECT_NE(layout.find("layout"), std::string::npos) << layout;
  const std::string groups = error_of(R"({"id": "g", "op": "group_norm_backward",
                                          "shape": [2, 6, 3], "groups": 4})");
  EXPECT_NE(groups.find("/problems/0/groups: 4 does not divide the channel count 6"),
            std::string::npos)
      << groups;
  const std::string suffix = error_of(R"({"id": "l", "op": "layer_norm_backward", "shape": [2, 4],
                                          "normalized_shape": [3]})");
  EXPECT_NE(suffix.find("is not a suffix of shape"), std::string::npos) << suffix;
  const std::string dy = error_of(R"({"id": "l", "op": "layer_norm_backward", "shape": [2, 4],
                                      "normalized_shape": [4], "dtype": "float16",
                                      "inputs": {"dy": {"dist": "constant", "value": 1e6}}})");
  EXPECT_NE(dy.find("/problems/0/inputs/dy/value: 1000000 overflows float16"), std::string::npos)
      << dy;
  // add_rms_norm_backward takes rms_norm's fields: no bias, no groups, no layout.
  const std::string add_bias = error_of(R"({"id": "a", "op": "add_rms_norm_backward",
                                            "shape": [2, 4], "normalized_shape": [4],
                                            "bias": false})");
  EXPECT_NE(add_bias.find("/problems/0"), std::string::npos) << add_bias;
  EXPECT_NE(add_bias.find("bias"), std::string::npos) << add_bias;
  EXPECT_NE(add_bias.find("allowed"), std::string::npos) << add_bias;
  const std::string add_groups = error_of(R"({"id": "a", "op": "add_rms_norm_backward",
                                              "shape": [2, 4], "normalized_shape": [4],
                                              "groups": 2})");
  EXPECT_NE(add_groups.find("groups"), std::string::npos) << add_groups;
  const std::string no_normalized = error_of(R"({"id": "a", "op": "add_rms_norm_backward",
                                                 "shape": [2, 4]})");
  EXPECT_NE(no_normalized.find("normalized_shape"), std::string::npos) << no_normalized;
  const std::string ds_out = error_of(R"({"id": "a", "op": "add_rms_norm_backward",
                                          "shape": [2, 4], "normalized_shape": [4],
                                          "dtype": "bfloat16", "inputs": {"ds_out":
                                          {"dist": "constant", "value": 1e39}}})");
  EXPECT_NE(ds_out.find("/problems/0/inputs/ds_out/value: 1e+39 overflows bfloat16"),
            std::string::npos)
      << ds_out;
  const std::string unknown = error_of(R"({"id": "a", "op": "add_rms_norm_backward",
                                           "shape": [2, 4], "normalized_shape": [4],
                                           "inputs": {"d_s": "normal"}})");
  EXPECT_NE(unknown.find("ds_out"), std::string::npos) << unknown;  // among what is allowed
}

}  // namespace
}  // namespace normbench
