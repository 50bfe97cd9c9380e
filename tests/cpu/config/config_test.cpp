// Valid configs: the shipped files, defaults, overrides, derived geometry and the config hash.
// Invalid ones are in config_errors_test.cpp.
#include "app/config/config.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using nlohmann::json;
using testing::source_path;

RunConfig parse(const json& doc) {
  return parse_config(doc.dump(), "test.json");
}

json one_layer_norm(json extra = json::object()) {
  json problem = {{"id", "p"}, {"op", "layer_norm"}, {"shape", {4, 8}}, {"normalized_shape", {8}}};
  problem.update(extra);
  return {{"name", "t"}, {"problems", json::array({problem})}};
}

TEST(Config, ShippedConfigsParse) {
  for (const char* name : {"kernelbench", "smoke", "edge", "smoke_formats", "edge_formats", "llm",
                           "diffusion", "scaling"}) {
    SCOPED_TRACE(name);
    const std::string path = source_path(std::string("configs/") + name + ".json");
    const RunConfig config = load_config_file(path);
    EXPECT_EQ(config.name, name);
    EXPECT_EQ(config.source, path);
    EXPECT_FALSE(config.problems.empty());
    EXPECT_EQ(config.hash.size(), 16u);
  }
}

TEST(Config, BuiltinConfigIsKernelbenchJson) {
  const RunConfig builtin = builtin_config();
  const RunConfig file = load_config_file(source_path("configs/kernelbench.json"));
  EXPECT_EQ(builtin.hash, file.hash);
  EXPECT_EQ(builtin.resolved, file.resolved);
  EXPECT_NE(builtin.source.find("built-in"), std::string::npos);
}

TEST(Config, KernelbenchGeometry) {
  const RunConfig config = load_config_file(source_path("configs/kernelbench.json"));
  ASSERT_EQ(config.problems.size(), 3u);

  const ProblemShape& a = config.problems[0].shape;  // [16, 64, 256, 256] over [64, 256, 256]
  EXPECT_EQ(config.problems[0].id, "A_layer_norm");
  EXPECT_EQ(a.op, Op::layer_norm);
  EXPECT_EQ(a.num_elements, 67108864);
  EXPECT_EQ(a.num_segments, 16);
  EXPECT_EQ(a.segment_size, 4194304);
  EXPECT_EQ(a.param_size, 4194304);
  EXPECT_EQ(a.min_bytes(), 4 * (2 * 67108864LL + 2 * 4194304LL));  // 570425344

  const ProblemShape& b = config.problems[1].shape;  // [112, 64, 512, 512], 8 groups
  EXPECT_EQ(config.problems[1].id, "B_group_norm");
  EXPECT_EQ(b.op, Op::group_norm);
  EXPECT_EQ(b.groups, 8);
  EXPECT_EQ(b.channels, 64);
  EXPECT_EQ(b.spatial, 262144);
  EXPECT_EQ(b.num_segments, 896);      // 112 * 8
  EXPECT_EQ(b.segment_size, 2097152);  // 8 channels * 512 * 512
  EXPECT_EQ(b.param_size, 64);
  EXPECT_EQ(b.min_bytes(), 15032385536LL + 2 * 64 * 4);

  const ProblemShape& c = config.problems[2].shape;  // [32, 64, 32, 64, 64] over [64]
  EXPECT_EQ(config.problems[2].id, "C_layer_norm_gelu_scale");
  EXPECT_EQ(c.op, Op::layer_norm_gelu_scale);
  EXPECT_EQ(c.num_segments, 4194304);
  EXPECT_EQ(c.segment_size, 64);
  EXPECT_EQ(c.param_size, 64);
  EXPECT_DOUBLE_EQ(c.scale, 1.0);
  EXPECT_EQ(c.min_bytes(), 4 * (2 * 268435456LL + 2 * 64));
}

TEST(Config, MatchesTheH100Fixture) {
  // The fixture was produced from configs/kernelbench.json: same hash, same geometry.
  const json report =
      json::parse(testing::read_text(source_path("tests/fixtures/h100_kernelbench_v1.json")));
  const RunConfig config = load_config_file(source_path("configs/kernelbench.json"));
  EXPECT_EQ(report["config"]["hash"], config.hash);
  EXPECT_EQ(report["config"]["resolved"], config.resolved);
  ASSERT_EQ(report["problems"].size(), config.problems.size());
  for (size_t i = 0; i < config.problems.size(); ++i) {
    const json& p = report["problems"][i];
    EXPECT_EQ(p["id"], config.problems[i].id);
    EXPECT_EQ(p["min_bytes"], config.problems[i].shape.min_bytes());
    EXPECT_EQ(p["num_segments"], config.problems[i].shape.num_segments);
    EXPECT_EQ(p["segment_size"], config.problems[i].shape.segment_size);
  }
}

TEST(Config, DefaultsWhenNothingIsSet) {
  const ProblemConfig p = parse(one_layer_norm()).problems.at(0);
  EXPECT_EQ(p.shape.dtype, DType::float32);
  EXPECT_DOUBLE_EQ(p.shape.eps, 1e-5);
  EXPECT_TRUE(p.shape.affine);
  EXPECT_DOUBLE_EQ(p.tolerance.rtol, 1e-5);
  EXPECT_DOUBLE_EQ(p.tolerance.atol, 1e-5);
  EXPECT_EQ(p.seed, 42u);
  EXPECT_EQ(p.trials, 3);
  EXPECT_EQ(p.timing.warmup, 5);
  EXPECT_EQ(p.timing.min_samples, 10);
  EXPECT_DOUBLE_EQ(p.timing.max_noise, 0.005);
  EXPECT_DOUBLE_EQ(p.timing.max_time_s, 5.0);
  EXPECT_TRUE(p.timing.flush_l2);
  ASSERT_EQ(p.inputs.size(), 3u);
  EXPECT_EQ(p.inputs.at("x"), Distribution::uniform(0.0, 1.0));
  EXPECT_EQ(p.inputs.at("weight"), Distribution::normal(0.0, 1.0));
  EXPECT_EQ(p.inputs.at("bias"), Distribution::normal(0.0, 1.0));
}

TEST(Config, ProblemOverridesDefaultsKeyByKey) {
  json doc = one_layer_norm({{"tolerance", {{"atol", 1e-6}}},
                             {"timing", {{"min_samples", 7}}},
                             {"inputs", {{"weight", "ones"}}},
                             {"eps", 0.5},
                             {"seed", 7}});
  doc["defaults"] = {{"tolerance", {{"rtol", 1e-3}, {"atol", 1e-4}}},
                     {"timing", {{"warmup", 1}, {"min_samples", 3}, {"flush_l2", false}}},
                     {"inputs", {{"x", {{"dist", "normal"}, {"mean", 1000}, {"std", 2}}}}},
                     {"eps", 1e-3},
                     {"trials", 5}};
  const ProblemConfig p = parse(doc).problems.at(0);
  EXPECT_DOUBLE_EQ(p.tolerance.rtol, 1e-3);  // from defaults
  EXPECT_DOUBLE_EQ(p.tolerance.atol, 1e-6);  // problem wins
  EXPECT_EQ(p.timing.warmup, 1);
  EXPECT_EQ(p.timing.min_samples, 7);
  EXPECT_FALSE(p.timing.flush_l2);
  EXPECT_DOUBLE_EQ(p.timing.max_noise, 0.005);  // built-in default
  EXPECT_EQ(p.inputs.at("x"), Distribution::normal(1000.0, 2.0));
  EXPECT_EQ(p.inputs.at("weight"), Distribution::constant(1.0));
  EXPECT_EQ(p.inputs.at("bias"), Distribution::normal(0.0, 1.0));
  EXPECT_DOUBLE_EQ(p.shape.eps, 0.5);
  EXPECT_EQ(p.seed, 7u);
  EXPECT_EQ(p.trials, 5);

  // The resolved problem carries every setting, for the report.
  EXPECT_EQ(p.resolved["tolerance"], json({{"rtol", 1e-3}, {"atol", 1e-6}}));
  EXPECT_EQ(p.resolved["timing"]["min_samples"], 7);
  EXPECT_EQ(p.resolved["inputs"]["weight"], json({{"dist", "constant"}, {"value", 1.0}}));
  EXPECT_EQ(p.resolved["inputs"]["x"], json({{"dist", "normal"}, {"mean", 1000.0}, {"std", 2.0}}));

  // The other key of each nested object: setting rtol alone keeps the default atol.
  doc["problems"][0] = one_layer_norm(
      {{"tolerance", {{"rtol", 0.5}}}, {"timing", {{"max_noise", 0.25}}}})["problems"][0];
  const ProblemConfig q = parse(doc).problems.at(0);
  EXPECT_DOUBLE_EQ(q.tolerance.rtol, 0.5);
  EXPECT_DOUBLE_EQ(q.tolerance.atol, 1e-4);
  EXPECT_DOUBLE_EQ(q.timing.max_noise, 0.25);
  EXPECT_EQ(q.timing.min_samples, 3);
  EXPECT_EQ(q.timing.warmup, 1);
  EXPECT_EQ(q.inputs.at("weight"), Distribution::normal(0.0, 1.0));
}

TEST(Config, DistributionForms) {
  json doc = one_layer_norm({{"inputs",
                              {{"x", {{"dist", "uniform"}, {"low", -2}, {"high", 3}}},
                               {"weight", "zeros"},
                               {"bias", {{"dist", "constant"}, {"value", 0.25}}}}}});
  const ProblemConfig p = parse(doc).problems.at(0);
  EXPECT_EQ(p.inputs.at("x"), Distribution::uniform(-2.0, 3.0));
  EXPECT_EQ(p.inputs.at("weight"), Distribution::constant(0.0));
  EXPECT_EQ(p.inputs.at("bias"), Distribution::constant(0.25));
  EXPECT_EQ(describe(p.inputs.at("x")), "uniform[-2, 3)");
  EXPECT_EQ(describe(Distribution::normal(1000, 1)), "normal(1000, 1)");
  EXPECT_EQ(describe(p.inputs.at("bias")), "constant(0.25)");
}

TEST(Config, DistributionOutliers) {
  json doc = one_layer_norm(
      {{"inputs",
        {{"x", {{"dist", "normal"}, {"outlier_every", 32}, {"outlier_value", 100}}},
         {"weight", {{"dist", "uniform"}, {"outlier_every", 3}, {"outlier_value", -2.5}}}}}});
  const ProblemConfig p = parse(doc).problems.at(0);
  Distribution x = Distribution::normal();
  x.outlier_every = 32;
  x.outlier_value = 100.0;
  EXPECT_EQ(p.inputs.at("x"), x);
  EXPECT_FALSE(p.inputs.at("x") == Distribution::normal());
  EXPECT_EQ(describe(x), "normal(0, 1), elements i % 32 == 0 set to 100");
  EXPECT_EQ(p.resolved["inputs"]["x"], json({{"dist", "normal"},
                                             {"mean", 0.0},
                                             {"std", 1.0},
                                             {"outlier_every", 32},
                                             {"outlier_value", 100.0}}));
  EXPECT_EQ(p.inputs.at("weight").outlier_every, 3);
  EXPECT_EQ(p.inputs.at("weight").outlier_value, -2.5);
  // Without outliers the resolved form is as before.
  EXPECT_EQ(p.resolved["inputs"]["bias"], json({{"dist", "normal"}, {"mean", 0.0}, {"std", 1.0}}));
}

TEST(Config, AffineFalseDropsWeightAndBias) {
  const ProblemConfig p = parse(one_layer_norm({{"affine", false}})).problems.at(0);
  EXPECT_FALSE(p.shape.affine);
  ASSERT_EQ(p.inputs.size(), 1u);
  EXPECT_EQ(p.inputs.count("x"), 1u);
  EXPECT_EQ(p.shape.min_bytes(), 4 * 2 * 32);  // no parameter bytes
  EXPECT_EQ(p.resolved["inputs"].size(), 1u);
}

TEST(Config, GroupNormAndGeluScaleGeometry) {
  const json doc = {{"name", "t"},
                    {"problems",
                     {{{"id", "gn"}, {"op", "group_norm"}, {"shape", {2, 6, 3, 5}}, {"groups", 3}},
                      {{"id", "gn2"}, {"op", "group_norm"}, {"shape", {4, 8}}, {"groups", 2}},
                      {{"id", "lngs"},
                       {"op", "layer_norm_gelu_scale"},
                       {"shape", {3, 4, 5}},
                       {"normalized_shape", {4, 5}},
                       {"scale", -2.5}}}}};
  const RunConfig config = parse(doc);
  const ProblemShape& gn = config.problems[0].shape;
  EXPECT_EQ(gn.channels, 6);
  EXPECT_EQ(gn.spatial, 15);
  EXPECT_EQ(gn.num_segments, 6);   // N * groups
  EXPECT_EQ(gn.segment_size, 30);  // 2 channels * 15
  EXPECT_EQ(gn.param_size, 6);
  EXPECT_EQ(gn.param_index(15 * 4 + 7), 4);            // channel 4 of sample 0
  EXPECT_EQ(gn.param_index(90 + 15 * 1 + 2), 1);       // channel 1 of sample 1
  const ProblemShape& gn2 = config.problems[1].shape;  // rank 2: no spatial dims
  EXPECT_EQ(gn2.spatial, 1);
  EXPECT_EQ(gn2.segment_size, 4);
  EXPECT_EQ(gn2.num_segments, 8);
  const ProblemShape& lngs = config.problems[2].shape;
  EXPECT_EQ(lngs.segment_size, 20);
  EXPECT_EQ(lngs.num_segments, 3);
  EXPECT_DOUBLE_EQ(lngs.scale, -2.5);
  EXPECT_EQ(lngs.param_index(47), 7);
  EXPECT_EQ(config.problems[2].resolved["scale"], -2.5);
}

TEST(Config, ChannelRmsNormNormalizesDimOneAtEachPosition) {
  const json doc = {
      {"name", "t"},
      {"problems",
       {{{"id", "crms"}, {"op", "channel_rms_norm"}, {"shape", {2, 6, 3, 5}}},
        {{"id", "plain"}, {"op", "channel_rms_norm"}, {"shape", {4, 8}}, {"affine", false}}}}};
  const RunConfig config = parse(doc);
  const ProblemConfig& crms = config.problems[0];
  const ProblemShape& p = crms.shape;
  EXPECT_EQ(p.channels, 6);
  EXPECT_EQ(p.spatial, 15);
  EXPECT_EQ(p.segment_size, 6);   // C
  EXPECT_EQ(p.num_segments, 30);  // N * spatial
  EXPECT_EQ(p.param_size, 6);
  EXPECT_EQ(p.param_index(15 * 4 + 7), 4);       // channel 4 of sample 0
  EXPECT_EQ(p.param_index(90 + 15 * 1 + 2), 1);  // channel 1 of sample 1
  EXPECT_FALSE(p.centered());
  EXPECT_TRUE(p.affine);
  EXPECT_FALSE(p.has_bias);  // a weight, never a bias
  EXPECT_EQ(crms.inputs.count("weight"), 1u);
  EXPECT_EQ(crms.inputs.count("bias"), 0u);
  EXPECT_EQ(p.min_bytes(), 4 * (2 * 180 + 6));  // x read, y written, the weight read
  EXPECT_FALSE(crms.resolved.contains("normalized_shape"));
  EXPECT_FALSE(crms.resolved.contains("groups"));
  EXPECT_FALSE(crms.resolved.contains("bias"));

  const ProblemShape& plain = config.problems[1].shape;  // rank 2: one position a sample
  EXPECT_EQ(plain.spatial, 1);
  EXPECT_EQ(plain.num_segments, 4);
  EXPECT_EQ(plain.segment_size, 8);
  EXPECT_FALSE(plain.affine);
  EXPECT_EQ(config.problems[1].inputs.size(), 1u);  // x alone
  EXPECT_EQ(plain.min_bytes(), 4 * 2 * 32);
}

TEST(Config, GroupNormSiluTakesGroupNormsFieldsAndFormats) {
  const json doc = {{"name", "t"},
                    {"problems",
                     {{{"id", "gns"},
                       {"op", "group_norm_silu"},
                       {"shape", {2, 6, 3, 5}},
                       {"groups", 3},
                       {"layout", "nhwc"},
                       {"dtype", "bfloat16"},
                       {"param_dtype", "float32"},
                       {"bias", false}},
                      {{"id", "plain"},
                       {"op", "group_norm_silu"},
                       {"shape", {4, 8}},
                       {"groups", 2},
                       {"affine", false}},
                      {{"id", "swept"},
                       {"op", "group_norm_silu"},
                       {"shape", {2, 8, 4}},
                       {"sweep", {{"groups", {1, 8}}}}}}}};
  const RunConfig config = parse(doc);
  ASSERT_EQ(config.problems.size(), 4u);
  const ProblemConfig& gns = config.problems[0];
  const ProblemShape& p = gns.shape;
  EXPECT_EQ(p.op, Op::group_norm_silu);
  EXPECT_TRUE(p.grouped());
  EXPECT_TRUE(p.centered());
  EXPECT_TRUE(p.channels_last());
  EXPECT_EQ(p.groups, 3);
  EXPECT_EQ(p.segment_size, 2 * 15);  // 2 channels of 15 positions
  EXPECT_EQ(p.num_segments, 6);
  EXPECT_EQ(p.param_index(15 * 4 + 7), 4);  // per channel, in the logical order
  EXPECT_EQ(p.dtype, DType::bfloat16);
  EXPECT_EQ(p.param_dtype, DType::float32);
  EXPECT_FALSE(p.has_bias);
  EXPECT_EQ(p.min_bytes(), 2 * 2 * 180 + 4 * 6);  // x read, y written, the float32 weight read
  EXPECT_EQ(gns.resolved["op"], "group_norm_silu");
  EXPECT_EQ(gns.resolved["groups"], 3);
  EXPECT_EQ(gns.resolved["layout"], "nhwc");
  EXPECT_EQ(gns.resolved["bias"], false);
  EXPECT_FALSE(gns.resolved.contains("normalized_shape"));
  // The default tolerance of its dtype, as group_norm.
  EXPECT_EQ(gns.tolerance.rtol, default_tolerance(DType::bfloat16).rtol);
  EXPECT_EQ(gns.tolerance.atol, default_tolerance(DType::bfloat16).atol);
  EXPECT_EQ(config.problems[1].shape.spatial, 1);
  EXPECT_EQ(config.problems[1].inputs.size(), 1u);  // x alone
  EXPECT_EQ(config.problems[1].tolerance.rtol, 1e-5);
  EXPECT_EQ(config.problems[3].id, "swept.groups-8");
  EXPECT_EQ(config.problems[3].shape.segment_size, 4);
}

TEST(Config, InstanceNormIsGroupNormWithOneChannelAGroup) {
  // InstanceNorm2d(C) as PyTorch builds it by default: no weight, no bias.
  const json doc = {{"name", "t"},
                    {"problems",
                     {{{"id", "in"},
                       {"op", "group_norm"},
                       {"shape", {2, 6, 3, 5}},
                       {"groups", 6},
                       {"affine", false}}}}};
  const ProblemConfig p = parse(doc).problems.at(0);
  EXPECT_EQ(p.shape.groups, 6);
  EXPECT_EQ(p.shape.num_segments, 12);  // N * C
  EXPECT_EQ(p.shape.segment_size, 15);  // one channel's positions
  EXPECT_FALSE(p.shape.affine);
  EXPECT_FALSE(p.shape.has_bias);
  EXPECT_EQ(p.inputs.size(), 1u);
  EXPECT_EQ(p.shape.min_bytes(), 4 * 2 * 180);
}

TEST(Config, IdCharacters) {
  for (const char* id : {"a", "A_layer_norm", "ln.v2-fast", "_x", "9.5"}) {
    SCOPED_TRACE(id);
    EXPECT_EQ(parse(one_layer_norm({{"id", id}})).problems.at(0).id, id);
  }
}

TEST(Config, HashIsEqualForEqualConfigsAndDiffersOtherwise) {
  const std::string base = parse(one_layer_norm()).hash;
  // Formatting, key order, the source name and spelled-out defaults do not matter.
  const std::string spaced = R"({ "problems": [ {"normalized_shape": [8], "shape": [4, 8],
      "op": "layer_norm", "id": "p", "eps": 1e-5, "trials": 3} ], "name": "t" })";
  EXPECT_EQ(parse_config(spaced, "elsewhere.json").hash, base);
  EXPECT_EQ(parse(one_layer_norm()).resolved, parse_config(spaced, "x.json").resolved);

  EXPECT_NE(parse(one_layer_norm({{"eps", 2e-5}})).hash, base);
  EXPECT_NE(parse(one_layer_norm({{"seed", 43}})).hash, base);
  EXPECT_NE(parse(one_layer_norm({{"shape", {5, 8}}})).hash, base);
  EXPECT_NE(parse(one_layer_norm({{"timing", {{"flush_l2", false}}}})).hash, base);
  EXPECT_NE(parse(one_layer_norm({{"inputs", {{"x", "normal"}}}})).hash, base);
  json renamed = one_layer_norm();
  renamed["name"] = "u";
  EXPECT_NE(parse(renamed).hash, base);
}

TEST(Config, SpelledOutNewDefaultsKeepTheHash) {
  const std::string base = parse(one_layer_norm()).hash;
  EXPECT_EQ(
      parse(one_layer_norm({{"bias", true}, {"param_dtype", "float32"}, {"dtype", "float32"}}))
          .hash,
      base);
  EXPECT_NE(parse(one_layer_norm({{"bias", false}})).hash, base);
  EXPECT_NE(parse(one_layer_norm({{"dtype", "bfloat16"}})).hash, base);
}

TEST(Config, CommittedReportsMatchTheirConfigsHashes) {
  // Gates compare a run with the committed report of the same config: the hashes must agree.
  for (const char* name : {"kernelbench", "smoke", "edge", "smoke_formats", "edge_formats", "llm",
                           "diffusion", "scaling"}) {
    SCOPED_TRACE(name);
    const std::string report_path =
        source_path(std::string("results/nvidia-h100-80gb-hbm3/") + name + ".json");
    const json report = json::parse(testing::read_text(report_path));
    EXPECT_EQ(report["config"]["hash"],
              load_config_file(source_path(std::string("configs/") + name + ".json")).hash);
  }
}

TEST(Config, ToleranceDefaultsFollowTheDtype) {
  auto tolerance_of = [](const json& extra) {
    return parse(one_layer_norm(extra)).problems.at(0).tolerance;
  };
  EXPECT_EQ(tolerance_of(json::object()).rtol, 1e-5);
  EXPECT_EQ(tolerance_of({{"dtype", "bfloat16"}}).rtol, 0x1p-7);
  EXPECT_EQ(tolerance_of({{"dtype", "bfloat16"}}).atol, 0x1p-6);
  EXPECT_EQ(tolerance_of({{"dtype", "float16"}}).rtol, 0x1p-10);
  EXPECT_EQ(tolerance_of({{"dtype", "float16"}}).atol, 0x1p-9);
  // Key by key: what is set stays, the rest is the dtype's.
  const Tolerance mixed = tolerance_of({{"dtype", "float16"}, {"tolerance", {{"rtol", 0.01}}}});
  EXPECT_EQ(mixed.rtol, 0.01);
  EXPECT_EQ(mixed.atol, 0x1p-9);
  // A tolerance in defaults applies to every dtype.
  json doc = one_layer_norm({{"dtype", "bfloat16"}});
  doc["defaults"] = {{"tolerance", {{"atol", 1e-3}}}};
  EXPECT_EQ(parse(doc).problems.at(0).tolerance.atol, 1e-3);
  EXPECT_EQ(parse(doc).problems.at(0).tolerance.rtol, 0x1p-7);
}

TEST(Config, FormatsAndTheirResolvedFields) {
  const ProblemConfig bf16 =
      parse(one_layer_norm({{"dtype", "bfloat16"}, {"param_dtype", "float32"}, {"bias", false}}))
          .problems.at(0);
  EXPECT_EQ(bf16.shape.dtype, DType::bfloat16);
  EXPECT_EQ(bf16.shape.param_dtype, DType::float32);
  EXPECT_FALSE(bf16.shape.has_bias);
  EXPECT_TRUE(bf16.shape.affine);
  EXPECT_EQ(bf16.resolved["dtype"], "bfloat16");
  EXPECT_EQ(bf16.resolved["param_dtype"], "float32");
  EXPECT_EQ(bf16.resolved["bias"], false);
  EXPECT_EQ(bf16.inputs.count("bias"), 0u);
  EXPECT_EQ(bf16.inputs.count("weight"), 1u);

  const ProblemConfig same = parse(one_layer_norm({{"dtype", "float16"}})).problems.at(0);
  EXPECT_EQ(same.shape.param_dtype, DType::float16);  // param_dtype follows the dtype
  EXPECT_FALSE(same.resolved.contains("param_dtype"));
  EXPECT_FALSE(same.resolved.contains("bias"));
  EXPECT_FALSE(same.resolved.contains("layout"));

  const json group = {{"name", "t"},
                      {"problems",
                       {{{"id", "g"},
                         {"op", "group_norm"},
                         {"shape", {2, 8, 4, 4}},
                         {"groups", 4},
                         {"layout", "nhwc"}}}}};
  const ProblemConfig nhwc = parse(group).problems.at(0);
  EXPECT_TRUE(nhwc.shape.channels_last());
  EXPECT_EQ(nhwc.resolved["layout"], "nhwc");
  EXPECT_EQ(nhwc.shape.shape, (std::vector<int64_t>{2, 8, 4, 4}));  // logical, NCHW
}

TEST(Config, RmsOpsHaveNoBiasAndAddRmsNormAResidual) {
  const json doc = {
      {"name", "t"},
      {"defaults", {{"inputs", {{"residual", {{"dist", "normal"}, {"mean", 0}, {"std", 2}}}}}}},
      {"problems",
       {{{"id", "r"}, {"op", "rms_norm"}, {"shape", {4, 8}}, {"normalized_shape", {8}}},
        {{"id", "a"}, {"op", "add_rms_norm"}, {"shape", {4, 8}}, {"normalized_shape", {8}}},
        {{"id", "n"},
         {"op", "rms_norm"},
         {"shape", {4, 8}},
         {"normalized_shape", {8}},
         {"affine", false}}}}};
  const RunConfig c = parse(doc);
  const ProblemConfig& rms = c.problems.at(0);
  EXPECT_TRUE(rms.shape.affine);
  EXPECT_FALSE(rms.shape.has_bias);
  EXPECT_FALSE(rms.shape.centered());
  EXPECT_EQ(rms.inputs.count("residual"), 0u);
  EXPECT_EQ(rms.inputs.count("bias"), 0u);
  EXPECT_FALSE(rms.resolved.contains("bias"));  // never had one
  const ProblemConfig& add = c.problems.at(1);
  EXPECT_TRUE(add.shape.has_residual());
  EXPECT_EQ(add.inputs.at("residual"), Distribution::normal(0, 2));
  EXPECT_EQ(add.resolved["inputs"]["residual"]["std"], 2);
  EXPECT_EQ(add.shape.read_bytes(), 4 * (2 * 32 + 8));
  EXPECT_EQ(c.problems.at(2).inputs.size(), 1u);  // x only
}

// The largest shape a config may have: every byte count normbench makes of it still fits in
// int64 (add_rms_norm in float32 moves 20 bytes per element; one element more is refused).
TEST(Config, ByteCountsOfTheLargestShapeFit) {
  for (const char* op : {"add_rms_norm", "layer_norm"}) {
    const RunConfig c = parse_config(std::string(R"({"name": "big", "problems": [{"id": "p",
        "op": ")") + op + R"(", "shape": [144115188075855871],
        "normalized_shape": [144115188075855871]}]})",
                                     "big.json");
    const ProblemShape& shape = c.problems.at(0).shape;
    EXPECT_GT(shape.read_bytes(), 0) << op;
    EXPECT_GT(shape.write_bytes(), 0) << op;
    EXPECT_GT(shape.min_bytes(), shape.read_bytes()) << op;
  }
}

}  // namespace
}  // namespace normbench
