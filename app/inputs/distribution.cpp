#include "app/inputs/distribution.hpp"

#include <fmt/format.h>

#include "app/util/json_checks.hpp"

namespace normbench {

namespace {
constexpr const char* kAllowedForms =
    "allowed: \"uniform\", \"normal\", \"ones\", \"zeros\", {\"dist\":\"uniform\",\"low\":a,"
    "\"high\":b}, {\"dist\":\"normal\",\"mean\":m,\"std\":s}, {\"dist\":\"constant\",\"value\":v}";

double optional_number(const CheckedJson& node, const char* key, double fallback) {
  return node.has(key) ? node.at(key).as_finite_number() : fallback;
}
}  // namespace

Distribution parse_distribution(const CheckedJson& node) {
  if (node.node().is_string()) {
    const std::string name = node.as_string();
    if (name == "uniform") return Distribution::uniform();
    if (name == "normal") return Distribution::normal();
    if (name == "ones") return Distribution::constant(1.0);
    if (name == "zeros") return Distribution::constant(0.0);
    node.fail("unknown distribution \"" + name + "\"; " + kAllowedForms);
  }
  if (!node.node().is_object()) node.fail(std::string("expected a distribution; ") + kAllowedForms);
  const std::string dist = node.at("dist").as_string();
  if (dist == "uniform") {
    node.expect_object({"dist", "low", "high"});
    const double low = optional_number(node, "low", 0.0);
    const double high = optional_number(node, "high", 1.0);
    if (!(high > low)) node.fail(fmt::format("high ({}) must be greater than low ({})", high, low));
    return Distribution::uniform(low, high);
  }
  if (dist == "normal") {
    node.expect_object({"dist", "mean", "std"});
    const double mean = optional_number(node, "mean", 0.0);
    const double std = node.has("std") ? node.at("std").as_number_at_least(0.0) : 1.0;
    return Distribution::normal(mean, std);
  }
  if (dist == "constant") {
    node.expect_object({"dist", "value"});
    return Distribution::constant(node.at("value").as_finite_number());
  }
  node.at("dist").fail("unknown distribution \"" + dist + "\"; " + kAllowedForms);
}

nlohmann::json to_json(const Distribution& d) {
  switch (d.kind) {
    case Distribution::Kind::uniform:
      return {{"dist", "uniform"}, {"low", d.a}, {"high", d.b}};
    case Distribution::Kind::normal:
      return {{"dist", "normal"}, {"mean", d.a}, {"std", d.b}};
    case Distribution::Kind::constant:
      return {{"dist", "constant"}, {"value", d.a}};
  }
  return {};
}

std::string describe(const Distribution& d) {
  switch (d.kind) {
    case Distribution::Kind::uniform:
      return fmt::format("uniform[{}, {})", d.a, d.b);
    case Distribution::Kind::normal:
      return fmt::format("normal({}, {})", d.a, d.b);
    case Distribution::Kind::constant:
      return fmt::format("constant({})", d.a);
  }
  return "";
}

}  // namespace normbench
