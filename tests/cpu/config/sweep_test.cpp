// Sweeps: one problem per point of its axes, as if each were written out by hand; and the
// sweeps a config may not ask for.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "app/config/config.hpp"
#include "app/config/sweep.hpp"
#include "app/util/errors.hpp"

namespace normbench {
namespace {

using nlohmann::json;

RunConfig parse(const json& problems) {
  return parse_config(json{{"name", "sweep"}, {"problems", problems}}.dump(), "sweep.json");
}

std::string error_of(const json& problems) {
  try {
    parse(problems);
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << problems.dump();
  return "";
}

const json kRms = {{"id", "rms"},
                   {"op", "rms_norm"},
                   {"shape", {1, 4096}},
                   {"normalized_shape", {4096}},
                   {"dtype", "bfloat16"}};

json swept(json problem, const json& sweep) {
  problem["sweep"] = sweep;
  return problem;
}

TEST(Sweep, OnePointOneProblemWithAStableId) {
  const RunConfig c = parse(json::array({swept(kRms, {{"rows", {1, 8, 512}}})}));
  ASSERT_EQ(c.problems.size(), 3u);
  EXPECT_EQ(c.problems[0].id, "rms.rows-1");
  EXPECT_EQ(c.problems[2].id, "rms.rows-512");
  EXPECT_EQ(c.problems[2].shape.shape, (std::vector<int64_t>{512, 4096}));
  EXPECT_EQ(c.problems[2].shape.dtype, DType::bfloat16);
  EXPECT_EQ(c.problems[1].resolved["sweep"], json({{"family", "rms"}, {"point", {{"rows", 8}}}}));
  // A point is the problem written out by hand, plus where it came from.
  json by_hand = kRms;
  by_hand["id"] = "rms.rows-8";
  by_hand["shape"] = {8, 4096};
  const RunConfig hand = parse(json::array({by_hand}));
  json resolved = c.problems[1].resolved;
  resolved.erase("sweep");
  EXPECT_EQ(resolved, hand.problems[0].resolved);
}

TEST(Sweep, AxesCombineAndANormalizedDimMovesWithTheShape) {
  const RunConfig c = parse(
      json::array({swept(kRms, {{"shape[1]", {4096, 8192}}, {"dtype", {"bfloat16", "float16"}}})}));
  ASSERT_EQ(c.problems.size(), 4u);
  // Axes in alphabetical order, the last varying fastest.
  EXPECT_EQ(c.problems[0].id, "rms.dtype-bfloat16.shape1-4096");
  EXPECT_EQ(c.problems[1].id, "rms.dtype-bfloat16.shape1-8192");
  EXPECT_EQ(c.problems[3].id, "rms.dtype-float16.shape1-8192");
  EXPECT_EQ(c.problems[3].shape.normalized_shape, (std::vector<int64_t>{8192}));
  EXPECT_EQ(c.problems[3].shape.dtype, DType::float16);
  // The dtype's default tolerance follows the dtype of the point.
  EXPECT_EQ(c.problems[2].tolerance.rtol, default_tolerance(DType::float16).rtol);
}

TEST(Sweep, GroupsOfAGroupNorm) {
  const json gn = {{"id", "gn"}, {"op", "group_norm"}, {"shape", {2, 320, 8, 8}}, {"groups", 32}};
  const RunConfig c = parse(json::array({swept(gn, {{"groups", {8, 32, 320}}})}));
  ASSERT_EQ(c.problems.size(), 3u);
  EXPECT_EQ(c.problems[0].shape.groups, 8);
  EXPECT_EQ(c.problems[2].id, "gn.groups-320");
}

TEST(Sweep, MalformedSweepsAreRefusedWithTheirPath) {
  const std::pair<json, const char*> cases[] = {
      {{{"bogus", {1}}},
       "sweep.json: /problems/0/sweep: unknown axis \"bogus\"; allowed: rows, "
       "shape[k], dtype"},
      {{{"groups", {1}}}, "unknown axis \"groups\"; allowed: rows, shape[k], dtype"},
      {json::array(), "/problems/0/sweep: expected an object of axes"},
      {json::object(), "/problems/0/sweep: expected an object of axes"},
      {{{"rows", json::array()}}, "/problems/0/sweep/rows: 0 values; allowed: 1 to 64"},
      {{{"rows", {1, 1}}}, "/problems/0/sweep/rows/1: appears twice in the sweep"},
      {{{"rows", {0}}}, "/problems/0/sweep/rows/0: 0 is out of range"},
      {{{"rows", {"8"}}}, "/problems/0/sweep/rows/0"},
      {{{"dtype", {"float64"}}}, "/problems/0/sweep/dtype/0: unknown dtype \"float64\""},
      {{{"shape[2]", {2}}},
       "/problems/0/sweep/shape[2]: shape[2] sets dim 2 of shape, which has "
       "no such dim; allowed: shape[0] to shape[1]"},
      // rows is shape[0]: the points would have been named by both and sized by one.
      {{{"rows", {1, 2}}, {"shape[0]", {3, 4}}},
       "sweep.json: /problems/0/sweep: rows and shape[0] both set dim 0 of shape; allowed: one "
       "axis per dim"},
  };
  for (const auto& [sweep, expected] : cases) {
    SCOPED_TRACE(sweep.dump());
    const std::string message = error_of(json::array({swept(kRms, sweep)}));
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  }
  // A point that is not a valid problem is named by its point.
  const json gn = {{"id", "gn"}, {"op", "group_norm"}, {"shape", {2, 320, 8, 8}}, {"groups", 32}};
  EXPECT_NE(error_of(json::array({swept(gn, {{"groups", {7}}})}))
                .find("/problems/0[groups=7]/groups: 7 does not divide the channel count 320"),
            std::string::npos);
  // A point whose id another problem has.
  json taken = kRms;
  taken["id"] = "rms.rows-8";
  EXPECT_NE(error_of(json::array({taken, swept(kRms, {{"rows", {8}}})}))
                .find("duplicate problem id \"rms.rows-8\""),
            std::string::npos);
}

TEST(Sweep, NoMoreThanItsBoundOfPoints) {
  json rows = json::array(), hidden = json::array();
  for (int i = 1; i <= 17; ++i) rows.push_back(i);
  for (int i = 1; i <= 16; ++i) hidden.push_back(64 * i);
  const std::string message =
      error_of(json::array({swept(kRms, {{"rows", rows}, {"shape[1]", hidden}})}));
  EXPECT_NE(message.find("/problems/0/sweep: 272 points; allowed: at most 256"), std::string::npos)
      << message;
}

// A config of sweeps within their bounds can still ask for hundreds of thousands of problems
// (3000 of 192 points in 1 MB took 60 s and gigabytes to plan): the config's problems are
// bounded too, points included.
TEST(Sweep, NoMoreThanTheConfigsBoundOfProblems) {
  json rows = json::array();
  for (int i = 1; i <= 64; ++i) rows.push_back(i);
  const json sweep = {{"rows", rows}, {"shape[1]", {1024, 2048, 4096, 8192}}};  // 256 points
  json problems = json::array();
  for (size_t i = 0; i < kMaxProblems / 256; ++i) {
    json p = swept(kRms, sweep);
    p["id"] = "rms" + std::to_string(i);
    problems.push_back(p);
  }
  EXPECT_EQ(parse(problems).problems.size(), kMaxProblems);  // exactly the bound: accepted
  json one_more = kRms;
  one_more["id"] = "one_more";
  problems.push_back(one_more);
  std::string message = error_of(problems);
  EXPECT_NE(message.find("sweep.json: /problems/16: the config makes more than 4096 problems"),
            std::string::npos)
      << message;
  problems.back() = swept(one_more, {{"rows", {1, 2}}});
  message = error_of(problems);
  EXPECT_NE(message.find("/problems/16: the config makes more than 4096"), std::string::npos)
      << message;
  problems.erase(problems.size() - 1);  // 16 sweeps of 256 after a plain problem
  json plain = kRms;
  plain["id"] = "plain";
  problems.insert(problems.begin(), plain);
  message = error_of(problems);
  EXPECT_NE(message.find("/problems/16/sweep: its 256 points take the config past 4096 problems "
                         "(3841 before it)"),
            std::string::npos)
      << message;
}

// Dims past 9 are axes too: the axis name's index is not one digit.
TEST(Sweep, ADimPastNineIsAnAxis) {
  json gn = {
      {"id", "gn"}, {"op", "group_norm"}, {"shape", json(std::vector<int>(11, 1))}, {"groups", 1}};
  gn["shape"][0] = 2;
  gn["shape"][1] = 4;
  const RunConfig config = parse(json::array({swept(gn, {{"shape[10]", {1, 2}}})}));
  ASSERT_EQ(config.problems.size(), 2u);
  EXPECT_EQ(config.problems[1].id, "gn.shape10-2");
}

// 64 values on each of 11 axes make 2^66 points, which a size_t would wrap to 0: the problem
// would have vanished from the plan instead of being refused.
TEST(Sweep, APointCountPastSixtyFourBitsIsRefusedNotWrapped) {
  json values = json::array();
  for (int i = 1; i <= 64; ++i) values.push_back(i);
  json sweep = {{"groups", values}};
  for (int k = 0; k < 10; ++k) sweep["shape[" + std::to_string(k) + "]"] = values;
  const json gn = {
      {"id", "gn"}, {"op", "group_norm"}, {"shape", json(std::vector<int>(10, 1))}, {"groups", 1}};
  const std::string message = error_of(json::array({swept(gn, sweep)}));
  EXPECT_NE(message.find("sweep.json: /problems/0/sweep: about 7.38e+19 points; allowed: at most "
                         "256"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace normbench
