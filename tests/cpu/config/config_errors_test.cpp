// Invalid configs: each must throw ConfigError whose message names the source, the JSON path
// of the offending value and what is allowed there.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "app/config/config.hpp"
#include "app/util/errors.hpp"
#include "app/util/json_parse.hpp"
#include "tests/cpu/test_support.hpp"

namespace normbench {
namespace {

using nlohmann::json;

// A valid config with one problem of each op; every case below breaks one thing in it.
json base_config() {
  return json::parse(R"({
    "name": "base",
    "defaults": {"tolerance": {"rtol": 1e-5, "atol": 1e-5}, "timing": {"warmup": 1},
                 "inputs": {"x": "uniform"}},
    "problems": [
      {"id": "ln", "op": "layer_norm", "shape": [4, 8], "normalized_shape": [8]},
      {"id": "gn", "op": "group_norm", "shape": [2, 6, 3], "groups": 3},
      {"id": "lngs", "op": "layer_norm_gelu_scale", "shape": [2, 16], "normalized_shape": [16],
       "scale": 2}
    ]})");
}

// The message of the ConfigError that parsing `text` throws; fails the test if none is thrown.
std::string config_error(const std::string& text, const std::string& source = "bad.json") {
  try {
    parse_config(text, source);
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return "";
}

void expect_contains(const std::string& message, const std::vector<std::string>& parts) {
  for (const auto& part : parts)
    EXPECT_NE(message.find(part), std::string::npos)
        << "missing \"" << part << "\" in: " << message;
}

TEST(ConfigErrors, BaseConfigIsValid) {
  EXPECT_EQ(parse_config(base_config().dump(), "b").problems.size(), 3u);
}

TEST(ConfigErrors, NotJson) {
  for (const char* text : {"", "{", "[1, 2", "{\"name\": \"x\",}", "name: x"}) {
    SCOPED_TRACE(text);
    expect_contains(config_error(text), {"bad.json: ", "not valid JSON"});
  }
}

TEST(ConfigErrors, RootMustBeAnObject) {
  expect_contains(config_error("[]"), {"bad.json: /: expected an object"});
}

TEST(ConfigErrors, UnknownKeysAreEscapedInThePath) {
  json doc = base_config();
  doc["a/b~c"] = 1;
  expect_contains(config_error(doc.dump()), {"bad.json: /a~1b~0c: unknown field"});
}

TEST(ConfigErrors, LoadConfigFileNamesTheFile) {
  testing::TempDir dir;
  const std::string path = dir.file("broken.json");
  json doc = base_config();
  doc["problems"][1]["groups"] = 4;
  testing::write_text(path, doc.dump());
  try {
    load_config_file(path);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    expect_contains(e.what(), {path + ": /problems/1/groups: ", "allowed: a divisor of 6"});
  }
  try {
    load_config_file(dir.file("missing.json"));
    FAIL() << "accepted a missing file";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              dir.file("missing.json") + ": cannot read the config: No such file or directory");
  }
  try {
    load_config_file(dir.path());
    FAIL() << "accepted a directory";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), dir.path() + ": cannot read the config: it is a directory");
  }
}

// Found when tried as a hostile user would: each ended in a crash or an internal error.
TEST(ConfigErrors, DeepNestingIsRefusedNotACrash) {
  const std::string deep(100000, '[');
  EXPECT_EQ(
      config_error(deep),
      "bad.json: /0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/"
      "0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0: nested deeper than 64 levels; "
      "allowed: at most 64");
  json doc = base_config();
  json nested = 1;
  for (int i = 0; i < 200; ++i) nested = json::array({nested});
  doc["problems"][0]["shape"] = nested;
  expect_contains(config_error(doc.dump()),
                  {"bad.json: /problems/0/shape/0/0/", "nested deeper than 64 levels"});
}

// A file of small containers within the size limits took gigabytes to parse (each an object
// in memory): their count is bounded. (The bound on fields works alike; a test of it would
// hold 8 M fields in memory.)
TEST(ConfigErrors, TooManyContainersAreRefusedNotParsedIntoMemory) {
  std::string many = "[";
  for (size_t i = 0; i <= kMaxJsonContainers; ++i) many += "[],";
  many.back() = ']';
  expect_contains(config_error(many), {"bad.json: /2097151: more than 2097152 objects and arrays; "
                                       "allowed: at most 2097152"});
}

// The parser took a NUL byte for the end of the input and ignored what followed it.
TEST(ConfigErrors, ANulByteIsRefusedNotTheEndOfTheFile) {
  const std::string text = base_config().dump();
  EXPECT_EQ(config_error(text + std::string(1, '\0') + "{\"name\": \"y\"}"),
            "bad.json: byte " + std::to_string(text.size()) +
                " is a NUL byte; allowed: JSON text, which has none");
}

// std::regex_match recursed once per character: an id of some 26,000 crashed normbench.
TEST(ConfigErrors, LongIdIsRefusedNotACrash) {
  json doc = base_config();
  doc["problems"][0]["id"] = std::string(30000, 'a');
  const std::string message = config_error(doc.dump());
  expect_contains(message, {"bad.json: /problems/0/id: \"aaaa", "... (30000 bytes in all)\"",
                            "is not a valid id; allowed: 1 to 128 letters"});
  EXPECT_LT(message.size(), 500u) << message;
  doc["problems"][0]["id"] = std::string(129, 'a');
  expect_contains(config_error(doc.dump()), {"/problems/0/id: ", "is not a valid id"});
  doc["problems"][0]["id"] = std::string(128, 'a');
  EXPECT_EQ(parse_config(doc.dump(), "b").problems[0].id, std::string(128, 'a'));
}

// A 100,000-character value is named by its start and its length, never echoed whole.
TEST(ConfigErrors, LongTextIsShortenedInMessages) {
  const std::string huge(100000, 'z');
  const std::vector<void (*)(json&, const std::string&)> edits = {
      [](json& d, const std::string& v) { d["problems"][0]["op"] = v; },
      [](json& d, const std::string& v) { d["defaults"]["dtype"] = v; },
      [](json& d, const std::string& v) { d["problems"][1]["layout"] = v; },
      [](json& d, const std::string& v) { d["problems"][0][v] = 1; },
      [](json& d, const std::string& v) { d["defaults"]["inputs"]["x"] = v; },
      [](json& d, const std::string& v) { d["problems"][0]["shape"] = v; },
  };
  for (const auto& edit : edits) {
    json doc = base_config();
    edit(doc, huge);
    const std::string message = config_error(doc.dump());
    EXPECT_LT(message.size(), 1000u) << message.substr(0, 1000);
    EXPECT_NE(message.find("zzz"), std::string::npos) << message.substr(0, 1000);
  }
  json bad = base_config();
  bad["problems"][1]["groups"] = 4;
  EXPECT_LT(config_error(bad.dump(), std::string(100000, 's')).size(), 1000u);
}

// The base config with `"eps": <number as written>` in problem "ln": numbers that a json value
// cannot hold.
std::string with_eps_written(const std::string& number) {
  std::string text = base_config().dump();
  const std::string eps_in_problem = R"("id":"ln",)";
  text.replace(text.find(eps_in_problem), eps_in_problem.size(),
               eps_in_problem + R"("eps":)" + number + ",");
  return text;
}

TEST(ConfigErrors, NumberOutOfRangeNamesItsPath) {
  EXPECT_EQ(config_error(with_eps_written("1e400")),
            "bad.json: /problems/0/eps: the number 1e400 is out of range; allowed: a finite "
            "number (magnitude below 1.8e308)");
}

// The parsed double of 1e-400 is 0: a message built from it would show "0.0", which the file
// does not have.
TEST(ConfigErrors, NumberThatUnderflowsIsShownAsWritten) {
  EXPECT_EQ(config_error(with_eps_written("1E-400")),
            "bad.json: /problems/0/eps: the number 1E-400 underflows to 0; allowed: 0, or a "
            "magnitude of at least 4.9e-324");
  // Zero written as such is a number like any other.
  for (const char* zero : {"0.0", "0e-400", "-0.000E5"})
    EXPECT_NE(config_error(R"({"name": "z", "problems": [], "x": )" + std::string(zero) + "}")
                  .find("/x: unknown field"),
              std::string::npos)
        << zero;
}

TEST(ConfigErrors, DuplicateFieldIsRefused) {
  const std::string text = R"({"name": "a", "name": "b", "problems": []})";
  EXPECT_EQ(config_error(text), "bad.json: /name: duplicate field; allowed: each field once");
}

struct BadConfig {
  const char* name;
  void (*edit)(json&);
  std::vector<std::string> expected;  // each must appear in the message
};

// Shown by gtest (and in ctest's test names) instead of the struct's bytes.
void PrintTo(const BadConfig& bad, std::ostream* os) {
  *os << bad.name;
}

class ConfigErrorCase : public ::testing::TestWithParam<BadConfig> {};

TEST_P(ConfigErrorCase, ThrowsConfigErrorNamingPathAndAllowed) {
  json doc = base_config();
  GetParam().edit(doc);
  const std::string message = config_error(doc.dump());
  EXPECT_EQ(message.rfind("bad.json: /", 0), 0u) << message;
  expect_contains(message, GetParam().expected);
}

const char* const kSettingKeys =
    "allowed: dtype, param_dtype, eps, affine, tolerance, inputs, seed, trials, timing";

const BadConfig kBadConfigs[] = {
    // Unknown fields, at every level.
    {"unknown_top_level",
     [](json& d) { d["colour"] = 1; },
     {"/colour: unknown field", "allowed: $schema, name, description, defaults, problems"}},
    {"unknown_in_defaults",
     [](json& d) { d["defaults"]["epsilon"] = 1; },
     {"/defaults/epsilon: unknown field", kSettingKeys}},
    {"unknown_in_problem",
     [](json& d) { d["problems"][0]["group"] = 2; },
     {"/problems/0/group: unknown field", "allowed: id, description, op, shape, normalized_shape"}},
    {"groups_on_layer_norm",
     [](json& d) { d["problems"][0]["groups"] = 2; },
     {"/problems/0/groups: unknown field"}},
    {"scale_on_layer_norm",
     [](json& d) { d["problems"][0]["scale"] = 2; },
     {"/problems/0/scale: unknown field"}},
    {"normalized_shape_on_group_norm",
     [](json& d) { d["problems"][1]["normalized_shape"] = json::array({3}); },
     {"/problems/1/normalized_shape: unknown field", "groups"}},
    {"unknown_in_tolerance",
     [](json& d) { d["defaults"]["tolerance"]["abs"] = 1; },
     {"/defaults/tolerance/abs: unknown field", "allowed: rtol, atol"}},
    {"unknown_in_timing",
     [](json& d) {
       d["problems"][2]["timing"] = {{"repeats", 3}};
     },
     {"/problems/2/timing/repeats: unknown field",
      "allowed: warmup, min_samples, max_noise, max_time_s, flush_l2"}},
    {"unknown_input_tensor",
     [](json& d) { d["defaults"]["inputs"]["y"] = "normal"; },
     {"/defaults/inputs/y: unknown field", "allowed: x, residual, weight, bias"}},
    // Missing fields.
    {"missing_name",
     [](json& d) { d.erase("name"); },
     {"bad.json: /: missing required field \"name\""}},
    {"missing_problems",
     [](json& d) { d.erase("problems"); },
     {"/: missing required field \"problems\""}},
    {"missing_id",
     [](json& d) { d["problems"][1].erase("id"); },
     {"/problems/1: missing required field \"id\""}},
    {"missing_op",
     [](json& d) { d["problems"][0].erase("op"); },
     {"/problems/0: missing required field \"op\""}},
    {"missing_shape",
     [](json& d) { d["problems"][2].erase("shape"); },
     {"/problems/2: missing required field \"shape\""}},
    {"missing_normalized_shape",
     [](json& d) { d["problems"][0].erase("normalized_shape"); },
     {"/problems/0: missing required field \"normalized_shape\""}},
    {"missing_groups",
     [](json& d) { d["problems"][1].erase("groups"); },
     {"/problems/1: missing required field \"groups\""}},
    {"missing_dist",
     [](json& d) {
       d["problems"][0]["inputs"] = {{"x", {{"mean", 1}}}};
     },
     {"/problems/0/inputs/x: missing required field \"dist\""}},
    {"missing_constant_value",
     [](json& d) {
       d["problems"][1]["inputs"]["bias"] = {{"dist", "constant"}};
     },
     {"/problems/1/inputs/bias: missing required field \"value\""}},
    // Wrong types and empty values.
    {"empty_name", [](json& d) { d["name"] = ""; }, {"/name: \"\" is not a valid name"}},
    {"name_not_string", [](json& d) { d["name"] = 5; }, {"/name: expected a string, got 5"}},
    {"description_not_string",
     [](json& d) { d["problems"][0]["description"] = json::array({1}); },
     {"/problems/0/description: expected a string"}},
    {"problems_not_array",
     [](json& d) {
       d["problems"] = {{"id", "x"}};
     },
     {"/problems: expected an array"}},
    {"no_problems",
     [](json& d) { d["problems"] = json::array(); },
     {"/problems: expected at least one problem"}},
    {"problem_not_object",
     [](json& d) { d["problems"][1] = 3; },
     {"/problems/1: expected a problem object"}},
    {"defaults_not_object",
     [](json& d) { d["defaults"] = json::array(); },
     {"/defaults: expected an object"}},
    {"tolerance_not_object",
     [](json& d) { d["defaults"]["tolerance"] = 1e-5; },
     {"/defaults/tolerance: expected an object"}},
    {"op_not_string",
     [](json& d) { d["problems"][0]["op"] = 1; },
     {"/problems/0/op: expected a string"}},
    {"shape_not_array",
     [](json& d) { d["problems"][0]["shape"] = "4x8"; },
     {"/problems/0/shape: expected an array"}},
    {"affine_not_bool",
     [](json& d) { d["defaults"]["affine"] = "yes"; },
     {"/defaults/affine: expected true or false"}},
    {"flush_l2_not_bool",
     [](json& d) {
       d["problems"][1]["timing"] = {{"flush_l2", 1}};
     },
     {"/problems/1/timing/flush_l2: expected true or false"}},
    {"eps_not_number",
     [](json& d) { d["problems"][0]["eps"] = "small"; },
     {"/problems/0/eps: expected a number"}},
    {"scale_not_number",
     [](json& d) { d["problems"][2]["scale"] = "2"; },
     {"/problems/2/scale: expected a number"}},
    {"trials_not_integer",
     [](json& d) { d["defaults"]["trials"] = 2.5; },
     {"/defaults/trials: expected an integer", "allowed: an integer from 1 to 1000000"}},
    {"seed_negative",
     [](json& d) { d["defaults"]["seed"] = -1; },
     {"/defaults/seed: expected a non-negative integer"}},
    {"seed_not_integer",
     [](json& d) { d["problems"][0]["seed"] = 1.5; },
     {"/problems/0/seed: expected a non-negative integer"}},
    {"seed_beyond_64_bits",
     [](json& d) { d["problems"][0]["seed"] = 18446744073709551616.0; },
     {"/problems/0/seed: expected a non-negative integer",
      "allowed: an integer from 0 to 18446744073709551615 (2^64 - 1)"}},
    // Shapes.
    {"shape_zero_dim",
     [](json& d) {
       d["problems"][0]["shape"] = {4, 0};
     },
     {"/problems/0/shape/1: 0 is out of range", "allowed: an integer from 1 to"}},
    {"shape_negative_dim",
     [](json& d) {
       d["problems"][1]["shape"] = {-2, 6, 3};
     },
     {"/problems/1/shape/0: -2 is out of range", "allowed: an integer from 1 to"}},
    {"shape_non_integer_dim",
     [](json& d) {
       d["problems"][0]["shape"] = {4.5, 8};
     },
     {"/problems/0/shape/0: expected an integer", "allowed: an integer from 1 to"}},
    {"shape_string_dim",
     [](json& d) {
       d["problems"][0]["shape"] = {"4", 8};
     },
     {"/problems/0/shape/0: expected an integer"}},
    {"shape_dim_above_int64",
     [](json& d) {
       d["problems"][0]["shape"] = {18446744073709551615ull, 8};
     },
     {"/problems/0/shape/0: 18446744073709551615 is out of range"}},
    {"shape_product_overflows",
     [](json& d) {
       d["problems"][0]["shape"] = {4294967296ll, 4294967296ll, 8};
     },
     {"/problems/0/shape: ", "has too many elements: its byte counts would overflow",
      "allowed: a product of at most 144115188075855871"}},
    {"shape_empty",
     [](json& d) { d["problems"][0]["shape"] = json::array(); },
     {"/problems/0/shape: expected a non-empty array of positive integers"}},
    {"normalized_shape_empty",
     [](json& d) { d["problems"][0]["normalized_shape"] = json::array(); },
     {"/problems/0/normalized_shape: expected a non-empty array"}},
    {"normalized_shape_not_suffix",
     [](json& d) { d["problems"][0]["normalized_shape"] = json::array({4}); },
     {"/problems/0/normalized_shape: [4] is not a suffix of shape [4, 8]",
      "allowed: the trailing dims of shape, e.g. [8] or [4, 8]"}},
    {"normalized_shape_longer_than_shape",
     [](json& d) {
       d["problems"][2]["normalized_shape"] = {1, 2, 16};
     },
     {"/problems/2/normalized_shape: [1, 2, 16] is not a suffix of shape [2, 16]", "allowed:"}},
    {"groups_do_not_divide_channels",
     [](json& d) { d["problems"][1]["groups"] = 4; },
     {"/problems/1/groups: 4 does not divide the channel count 6", "allowed: a divisor of 6"}},
    {"groups_zero",
     [](json& d) { d["problems"][1]["groups"] = 0; },
     {"/problems/1/groups: 0 is out of range", "allowed: an integer from 1 to 6"}},
    {"groups_above_channels",
     [](json& d) { d["problems"][1]["groups"] = 12; },
     {"/problems/1/groups: 12 is out of range", "allowed: an integer from 1 to 6"}},
    {"group_norm_rank_1",
     [](json& d) { d["problems"][1]["shape"] = json::array({6}); },
     {"/problems/1/shape: group_norm needs shape (N, C, spatial...)", "allowed: 2 or more dims"}},
    // Numbers out of range.
    {"eps_zero",
     [](json& d) { d["defaults"]["eps"] = 0.0; },
     {"/defaults/eps: ", "out of range", "allowed: a number > 0"}},
    {"eps_negative",
     [](json& d) { d["problems"][1]["eps"] = -1e-5; },
     {"/problems/1/eps: ", "allowed: a number > 0"}},
    {"trials_zero",
     [](json& d) { d["defaults"]["trials"] = 0; },
     {"/defaults/trials: 0 is out of range", "allowed: an integer from 1 to 1000000"}},
    {"problem_trials_zero",
     [](json& d) { d["problems"][2]["trials"] = 0; },
     {"/problems/2/trials: 0 is out of range"}},
    {"min_samples_zero",
     [](json& d) { d["defaults"]["timing"]["min_samples"] = 0; },
     {"/defaults/timing/min_samples: 0 is out of range", "allowed: an integer from 1"}},
    {"warmup_negative",
     [](json& d) { d["defaults"]["timing"]["warmup"] = -1; },
     {"/defaults/timing/warmup: -1 is out of range", "allowed: an integer from 0"}},
    {"max_noise_zero",
     [](json& d) { d["defaults"]["timing"]["max_noise"] = 0; },
     {"/defaults/timing/max_noise: ", "allowed: a number > 0"}},
    {"rtol_negative",
     [](json& d) { d["defaults"]["tolerance"]["rtol"] = -1e-5; },
     {"/defaults/tolerance/rtol: ", "allowed: a number >= 0"}},
    // Names from closed sets.
    {"unknown_op",
     [](json& d) { d["problems"][0]["op"] = "batch_norm"; },
     {"/problems/0/op: unknown op \"batch_norm\"",
      "allowed: layer_norm, group_norm, layer_norm_gelu_scale"}},
    {"unknown_dtype",
     [](json& d) { d["defaults"]["dtype"] = "float64"; },
     {"/defaults/dtype: unsupported dtype \"float64\"", "allowed: float32, bfloat16, float16"}},
    {"problem_dtype",
     [](json& d) { d["problems"][1]["dtype"] = "int8"; },
     {"/problems/1/dtype: ", "allowed: float32, bfloat16, float16"}},
    {"dtype_not_a_string",
     [](json& d) { d["problems"][1]["dtype"] = 16; },
     {"/problems/1/dtype: ", "string"}},
    {"param_dtype_of_another_type",
     [](json& d) {
       d["defaults"]["dtype"] = "bfloat16";
       d["defaults"]["param_dtype"] = "bfloat16";
       d["problems"][1]["dtype"] = "float16";
     },
     {"/problems/1: param_dtype bfloat16 (/defaults/param_dtype) does not fit dtype float16",
      "allowed: float16 or float32"}},
    {"param_dtype_wider_than_float32_data",
     [](json& d) { d["problems"][0]["param_dtype"] = "bfloat16"; },
     {"/problems/0: param_dtype bfloat16 (/problems/0/param_dtype) does not fit dtype float32",
      "allowed: float32"}},
    {"unknown_param_dtype",
     [](json& d) { d["defaults"]["param_dtype"] = "fp8"; },
     {"/defaults/param_dtype: unsupported dtype \"fp8\"", "allowed: float32, bfloat16, float16"}},
    {"unknown_layout",
     [](json& d) { d["problems"][1]["layout"] = "channels_last"; },
     {"/problems/1/layout: unknown layout \"channels_last\"", "allowed: nchw, nhwc"}},
    {"layout_on_layer_norm",
     [](json& d) { d["problems"][0]["layout"] = "nhwc"; },
     {"/problems/0/layout: unknown field",
      "allowed: id, description, op, shape, normalized_shape"}},
    {"layout_in_defaults",
     [](json& d) { d["defaults"]["layout"] = "nhwc"; },
     {"/defaults/layout: unknown field", kSettingKeys}},
    {"bias_not_bool",
     [](json& d) { d["problems"][0]["bias"] = "no"; },
     {"/problems/0/bias: ", "true or false"}},
    {"bias_on_rms_norm",
     [](json& d) {
       d["problems"][0]["op"] = "rms_norm";
       d["problems"][0]["bias"] = false;
     },
     {"/problems/0/bias: unknown field", "allowed: id, description, op, shape, normalized_shape"}},
    {"rms_norm_without_normalized_shape",
     [](json& d) {
       d["problems"][0]["op"] = "add_rms_norm";
       d["problems"][0].erase("normalized_shape");
     },
     {"/problems/0: missing required field \"normalized_shape\""}},
    // channel_rms_norm: problem 1 (shape [2, 6, 3]) as RMSNorm over its 6 channels.
    {"normalized_shape_on_channel_rms_norm",
     [](json& d) {
       d["problems"][1] = {{"id", "crms"},
                           {"op", "channel_rms_norm"},
                           {"shape", {2, 6, 3}},
                           {"normalized_shape", {3}}};
     },
     {"/problems/1/normalized_shape: channel_rms_norm normalizes dim 1",
      "allowed: leave it out (rms_norm normalizes trailing dims)"}},
    {"groups_on_channel_rms_norm",
     [](json& d) {
       d["problems"][1]["op"] = "channel_rms_norm";  // keeps its "groups": 3
     },
     {"/problems/1/groups: channel_rms_norm normalizes dim 1",
      "allowed: leave it out (group_norm with groups = C"}},
    {"layout_on_channel_rms_norm",
     [](json& d) {
       d["problems"][1].erase("groups");
       d["problems"][1]["op"] = "channel_rms_norm";
       d["problems"][1]["layout"] = "nhwc";
     },
     {"/problems/1/layout: channel_rms_norm takes contiguous NCHW x only",
      "allowed: leave layout out"}},
    {"bias_on_channel_rms_norm",
     [](json& d) {
       d["problems"][1].erase("groups");
       d["problems"][1]["op"] = "channel_rms_norm";
       d["problems"][1]["bias"] = false;
     },
     {"/problems/1/bias: channel_rms_norm has no bias", "allowed: leave bias out"}},
    {"channel_rms_norm_of_one_dim",
     [](json& d) {
       d["problems"][1] = {{"id", "crms"}, {"op", "channel_rms_norm"}, {"shape", {6}}};
     },
     {"/problems/1/shape: channel_rms_norm needs shape (N, C, spatial...); got [6]",
      "allowed: 2 or more dims"}},
    {"scale_on_channel_rms_norm",
     [](json& d) {
       d["problems"][1] = {
           {"id", "crms"}, {"op", "channel_rms_norm"}, {"shape", {2, 6}}, {"scale", 2}};
     },
     {"/problems/1/scale: unknown field", "allowed: id, description, op, shape, dtype"}},
    // group_norm_silu: problem 1 (shape [2, 6, 3], 3 groups) with SiLU on its output; the
    // fields and checks of group_norm.
    {"group_norm_silu_without_groups",
     [](json& d) {
       d["problems"][1]["op"] = "group_norm_silu";
       d["problems"][1].erase("groups");
     },
     {"/problems/1: missing required field \"groups\""}},
    {"group_norm_silu_groups_do_not_divide_channels",
     [](json& d) {
       d["problems"][1]["op"] = "group_norm_silu";
       d["problems"][1]["groups"] = 4;
     },
     {"/problems/1/groups: 4 does not divide the channel count 6", "allowed: a divisor of 6"}},
    {"group_norm_silu_of_one_dim",
     [](json& d) {
       d["problems"][1] = {{"id", "gns"}, {"op", "group_norm_silu"}, {"shape", {6}}, {"groups", 1}};
     },
     {"/problems/1/shape: group_norm_silu needs shape (N, C, spatial...); got [6]",
      "allowed: 2 or more dims"}},
    {"normalized_shape_on_group_norm_silu",
     [](json& d) {
       d["problems"][1]["op"] = "group_norm_silu";
       d["problems"][1]["normalized_shape"] = {3};
     },
     {"/problems/1/normalized_shape: unknown field",
      "allowed: id, description, op, shape, groups, layout, bias"}},
    {"scale_on_group_norm_silu",
     [](json& d) {
       d["problems"][1]["op"] = "group_norm_silu";
       d["problems"][1]["scale"] = 2;
     },
     {"/problems/1/scale: unknown field", "allowed: id, description, op, shape, groups"}},
    {"unknown_layout_on_group_norm_silu",
     [](json& d) {
       d["problems"][1]["op"] = "group_norm_silu";
       d["problems"][1]["layout"] = "chwn";
     },
     {"/problems/1/layout: unknown layout \"chwn\"", "allowed: nchw, nhwc"}},
    {"unknown_distribution_name",
     [](json& d) { d["defaults"]["inputs"]["x"] = "gaussian"; },
     {"/defaults/inputs/x: unknown distribution \"gaussian\"", "allowed: \"uniform\", \"normal\""}},
    {"unknown_distribution_object",
     [](json& d) {
       d["problems"][0]["inputs"] = {{"x", {{"dist", "poisson"}}}};
     },
     {"/problems/0/inputs/x/dist: unknown distribution \"poisson\"", "allowed: \"uniform\""}},
    {"distribution_wrong_type",
     [](json& d) {
       d["problems"][0]["inputs"] = {{"weight", 5}};
     },
     {"/problems/0/inputs/weight: expected a distribution", "allowed: \"uniform\""}},
    {"uniform_high_equals_low",
     [](json& d) {
       d["problems"][0]["inputs"] = {{"x", {{"dist", "uniform"}, {"low", 1}, {"high", 1}}}};
     },
     {"/problems/0/inputs/x: high (1) must be greater than low (1)"}},
    {"uniform_high_below_low",
     [](json& d) {
       d["defaults"]["inputs"]["x"] = {{"dist", "uniform"}, {"low", 2}};
     },
     {"/defaults/inputs/x: high (1) must be greater than low (2)"}},
    {"uniform_unknown_param",
     [](json& d) {
       d["problems"][0]["inputs"] = {{"x", {{"dist", "uniform"}, {"mean", 1}}}};
     },
     {"/problems/0/inputs/x/mean: unknown field", "allowed: dist, low, high"}},
    {"normal_negative_std",
     [](json& d) {
       d["defaults"]["inputs"]["weight"] = {{"dist", "normal"}, {"std", -1}};
     },
     {"/defaults/inputs/weight/std: -1 is out of range", "allowed: a number >= 0"}},
    {"normal_string_mean",
     [](json& d) {
       d["defaults"]["inputs"]["bias"] = {{"dist", "normal"}, {"mean", "0"}};
     },
     {"/defaults/inputs/bias/mean: expected a number"}},
    {"outlier_every_without_value",
     [](json& d) {
       d["problems"][0]["inputs"] = {{"x", {{"dist", "normal"}, {"outlier_every", 64}}}};
     },
     {"/problems/0/inputs/x: \"outlier_every\" needs \"outlier_value\" as well"}},
    {"outlier_value_without_every",
     [](json& d) {
       d["problems"][0]["inputs"] = {{"x", {{"dist", "uniform"}, {"outlier_value", 9}}}};
     },
     {"/problems/0/inputs/x: \"outlier_value\" needs \"outlier_every\" as well"}},
    {"outlier_every_zero",
     [](json& d) {
       d["problems"][0]["inputs"] = {
           {"x", {{"dist", "normal"}, {"outlier_every", 0}, {"outlier_value", 9}}}};
     },
     {"/problems/0/inputs/x/outlier_every: 0 is out of range", "allowed: an integer from 1"}},
    {"outlier_every_fraction",
     [](json& d) {
       d["problems"][0]["inputs"] = {
           {"x", {{"dist", "normal"}, {"outlier_every", 2.5}, {"outlier_value", 9}}}};
     },
     {"/problems/0/inputs/x/outlier_every: expected an integer, got 2.5"}},
    {"outlier_value_string",
     [](json& d) {
       d["problems"][0]["inputs"] = {
           {"x", {{"dist", "normal"}, {"outlier_every", 4}, {"outlier_value", "big"}}}};
     },
     {"/problems/0/inputs/x/outlier_value: expected a number"}},
    {"outliers_of_a_constant",
     [](json& d) {
       d["problems"][0]["inputs"] = {
           {"x", {{"dist", "constant"}, {"value", 1}, {"outlier_every", 4}, {"outlier_value", 9}}}};
     },
     {"/problems/0/inputs/x/outlier_every: unknown field", "allowed: dist, value"}},
    // Ids.
    {"duplicate_id",
     [](json& d) { d["problems"][2]["id"] = "ln"; },
     {"/problems/2/id: duplicate problem id \"ln\""}},
    {"id_with_space",
     [](json& d) { d["problems"][0]["id"] = "a b"; },
     {"/problems/0/id: \"a b\" is not a valid id",
      "allowed: 1 to 128 letters, digits, '_', '.', '-'"}},
    {"id_with_slash",
     [](json& d) { d["problems"][1]["id"] = "a/x"; },
     {"/problems/1/id: \"a/x\" is not a valid id"}},
    // "." and ".." would name folders outside --save-tensors; "-x" reads as a CLI option.
    {"id_dot_dot",
     [](json& d) { d["problems"][1]["id"] = ".."; },
     {"/problems/1/id: \"..\" is not a valid id", "starting with a letter, digit or '_'"}},
    {"id_dot", [](json& d) { d["problems"][0]["id"] = "."; }, {"/problems/0/id: \".\" is not"}},
    {"id_leading_dash",
     [](json& d) { d["problems"][0]["id"] = "-x"; },
     {"/problems/0/id: \"-x\" is not a valid id"}},
    {"id_empty",
     [](json& d) { d["problems"][1]["id"] = ""; },
     {"/problems/1/id: \"\" is not a valid id"}},
    // The name makes the default report path, normbench-<name>.json: it must not climb.
    {"name_climbs_folders",
     [](json& d) { d["name"] = "../../x"; },
     {"/name: \"../../x\" is not a valid name", "allowed: 1 to 128 letters, digits"}},
    {"name_with_slash", [](json& d) { d["name"] = "a/b"; }, {"/name: \"a/b\" is not a valid name"}},
    {"name_leading_dot", [](json& d) { d["name"] = ".x"; }, {"/name: \".x\" is not a valid name"}},
    {"name_too_long",
     [](json& d) { d["name"] = std::string(129, 'n'); },
     {"/name: \"nnn", "is not a valid name"}},
    // Byte counts that overflow int64 (add_rms_norm moves 20 bytes per float32 element).
    {"shape_bytes_overflow",
     [](json& d) {
       d["problems"][0] = {{"id", "big"},
                           {"op", "add_rms_norm"},
                           {"shape", {576460752303423487ll}},
                           {"normalized_shape", {576460752303423487ll}}};
     },
     {"/problems/0/shape/0: 576460752303423487 is out of range",
      "allowed: an integer from 1 to 144115188075855871"}},
    {"shape_product_bytes_overflow",
     [](json& d) {
       d["problems"][0]["shape"] = {268435456ll, 1073741824ll};
       d["problems"][0]["normalized_shape"] = {1073741824ll};
     },
     {"/problems/0/shape: [268435456,1073741824] has too many elements"}},
    // Values beyond the largest finite value of the type that holds them.
    {"constant_overflows_float32",
     [](json& d) {
       d["problems"][0]["inputs"] = {{"x", {{"dist", "constant"}, {"value", 1e300}}}};
     },
     {"/problems/0/inputs/x/value: 1e+300 overflows float32",
      "allowed: a magnitude of at most 3.4028234663852886e+38"}},
    {"uniform_high_overflows_float16",
     [](json& d) {
       d["problems"][0]["dtype"] = "float16";
       d["defaults"]["inputs"]["x"] = {{"dist", "uniform"}, {"low", 0}, {"high", 70000}};
     },
     {"/defaults/inputs/x/high: 70000 overflows float16 (its largest finite value is 65504)",
      "allowed: a magnitude of at most 65504"}},
    {"outlier_overflows_bfloat16",
     [](json& d) {
       d["problems"][1]["dtype"] = "bfloat16";
       d["problems"][1]["inputs"] = {
           {"x", {{"dist", "normal"}, {"outlier_every", 3}, {"outlier_value", 3.4e38}}}};
     },
     {"/problems/1/inputs/x/outlier_value: 3.4e+38 overflows bfloat16"}},
    {"weight_std_overflows_float16_params",
     [](json& d) {
       d["problems"][0]["dtype"] = "float16";
       d["problems"][0]["inputs"] = {{"weight", {{"dist", "normal"}, {"std", -1}}}};
       d["problems"][0]["inputs"]["weight"]["std"] = 1e6;
     },
     {"/problems/0/inputs/weight/std: 1000000 overflows float16, the problem's param_dtype"}},
    // Each number is finite, but the draws reach mean + 8.5717 std.
    {"normal_draws_overflow_float16",
     [](json& d) {
       d["problems"][0]["dtype"] = "float16";
       d["problems"][0]["inputs"] = {{"x", {{"dist", "normal"}, {"mean", 0}, {"std", 8000}}}};
     },
     {"/problems/0/inputs/x: normal(0, 8000) draws values up to |mean| + 8.5717 std = "
      "6.857e+04, which overflows float16",
      "allowed: |mean| + 8.5717 std at most that"}},
    {"normal_draws_overflow_float32",
     [](json& d) {
       d["problems"][0]["inputs"] = {{"x", {{"dist", "normal"}, {"mean", -1e38}, {"std", 3e37}}}};
     },
     {"/problems/0/inputs/x: normal(-1e+38, 3e+37) draws values up to |mean| + 8.5717 std",
      "overflows float32"}},
    {"eps_overflows_float32",
     [](json& d) { d["defaults"]["eps"] = 1e300; },
     {"/defaults/eps: 1e+300 overflows float32, in which kernels add eps to the variance"}},
    // Kernels add static_cast<float>(eps): 0 there, a row of zeros becomes NaN.
    {"eps_underflows_float32",
     [](json& d) { d["problems"][1]["eps"] = 1e-50; },
     {"/problems/1/eps: 1e-50 underflows float32, in which kernels add eps to the variance",
      "allowed: at least 1.1754944e-38"}},
    // A subnormal float32, which kernels that flush subnormals make 0.
    {"eps_subnormal_in_float32",
     [](json& d) { d["defaults"]["eps"] = 1e-40; },
     {"/defaults/eps: 1e-40 underflows float32", "allowed: at least 1.1754944e-38"}},
    // Every output of layer_norm_gelu_scale would overflow its type.
    {"scale_overflows_float32",
     [](json& d) { d["problems"][2]["scale"] = 1e300; },
     {"/problems/2/scale: 1e+300 overflows float32, the type of the outputs it multiplies"}},
    {"scale_overflows_float16",
     [](json& d) {
       d["problems"][2]["scale"] = 1e5;
       d["problems"][2]["dtype"] = "float16";
     },
     {"/problems/2/scale: 100000 overflows float16", "allowed: a magnitude of at most 65504"}},
    // A default that fails at one point of one problem's sweep names that problem and point.
    {"default_value_overflows_at_one_sweep_point",
     [](json& d) {
       d["defaults"]["inputs"]["x"] = {{"dist", "constant"}, {"value", 1e6}};
       d["problems"][0]["sweep"] = {{"dtype", {"float32", "float16"}}};
     },
     {"/defaults/inputs/x/value: 1000000 overflows float16",
      "(in problem /problems/0[dtype=float16])"}},
    // Inputs the op never reads, named on the problem itself (the defaults may name them for
    // other problems' ops).
    {"residual_on_layer_norm",
     [](json& d) {
       d["problems"][0]["inputs"] = {{"residual", "normal"}};
     },
     {"/problems/0/inputs/residual: layer_norm reads no residual; allowed: x, weight, bias"}},
    {"gradient_on_a_forward_op",
     [](json& d) {
       d["problems"][1]["inputs"] = {{"dy", "normal"}};
     },
     {"/problems/1/inputs/dy: group_norm reads no dy"}},
};

INSTANTIATE_TEST_SUITE_P(All, ConfigErrorCase, ::testing::ValuesIn(kBadConfigs),
                         [](const ::testing::TestParamInfo<BadConfig>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace normbench
