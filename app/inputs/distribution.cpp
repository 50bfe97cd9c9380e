#include "app/inputs/distribution.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <string>

#include "app/util/json_checks.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

namespace {
constexpr const char* kAllowedForms =
    "allowed: \"uniform\", \"normal\", \"ones\", \"zeros\", {\"dist\":\"uniform\",\"low\":a,"
    "\"high\":b}, {\"dist\":\"normal\",\"mean\":m,\"std\":s} (either with \"outlier_every\":k "
    "and \"outlier_value\":v), {\"dist\":\"constant\",\"value\":v}";

double optional_number(const CheckedJson& node, const char* key, double fallback) {
  return node.has(key) ? node.at(key).as_finite_number() : fallback;
}

// "outlier_every" and "outlier_value": both or neither.
Distribution with_outliers(const CheckedJson& node, Distribution d) {
  const bool every = node.has("outlier_every"), value = node.has("outlier_value");
  if (every != value)
    node.fail(std::string("\"") + (every ? "outlier_every" : "outlier_value") + "\" needs \"" +
              (every ? "outlier_value" : "outlier_every") + "\" as well");
  if (every) {
    d.outlier_every = node.at("outlier_every").as_int(1, std::numeric_limits<int64_t>::max());
    d.outlier_value = node.at("outlier_value").as_finite_number();
  }
  return d;
}
}  // namespace

Distribution parse_distribution(const CheckedJson& node) {
  if (node.node().is_string()) {
    const std::string name = node.as_string();
    if (name == "uniform") return Distribution::uniform();
    if (name == "normal") return Distribution::normal();
    if (name == "ones") return Distribution::constant(1.0);
    if (name == "zeros") return Distribution::constant(0.0);
    node.fail("unknown distribution \"" + shown(name) + "\"; " + kAllowedForms);
  }
  if (!node.node().is_object()) node.fail(std::string("expected a distribution; ") + kAllowedForms);
  const std::string dist = node.at("dist").as_string();
  if (dist == "uniform") {
    node.expect_object({"dist", "low", "high", "outlier_every", "outlier_value"});
    const double low = optional_number(node, "low", 0.0);
    const double high = optional_number(node, "high", 1.0);
    if (!(high > low)) node.fail(fmt::format("high ({}) must be greater than low ({})", high, low));
    return with_outliers(node, Distribution::uniform(low, high));
  }
  if (dist == "normal") {
    node.expect_object({"dist", "mean", "std", "outlier_every", "outlier_value"});
    const double mean = optional_number(node, "mean", 0.0);
    const double std = node.has("std") ? node.at("std").as_number_at_least(0.0) : 1.0;
    return with_outliers(node, Distribution::normal(mean, std));
  }
  if (dist == "constant") {
    node.expect_object({"dist", "value"});
    return Distribution::constant(node.at("value").as_finite_number());
  }
  node.at("dist").fail("unknown distribution \"" + shown(dist) + "\"; " + kAllowedForms);
}

nlohmann::json to_json(const Distribution& d) {
  nlohmann::json j;
  switch (d.kind) {
    case Distribution::Kind::uniform:
      j = {{"dist", "uniform"}, {"low", d.a}, {"high", d.b}};
      break;
    case Distribution::Kind::normal:
      j = {{"dist", "normal"}, {"mean", d.a}, {"std", d.b}};
      break;
    case Distribution::Kind::constant:
      j = {{"dist", "constant"}, {"value", d.a}};
      break;
  }
  if (d.outlier_every > 0) {
    j["outlier_every"] = d.outlier_every;
    j["outlier_value"] = d.outlier_value;
  }
  return j;
}

std::vector<std::pair<std::string, double>> distribution_values(const Distribution& d) {
  std::vector<std::pair<std::string, double>> values;
  switch (d.kind) {
    case Distribution::Kind::uniform:
      values = {{"low", d.a}, {"high", d.b}};
      break;
    case Distribution::Kind::normal:
      values = {{"mean", d.a}, {"std", d.b}};
      break;
    case Distribution::Kind::constant:
      values = {{"value", d.a}};
      break;
  }
  if (d.outlier_every > 0) values.push_back({"outlier_value", d.outlier_value});
  return values;
}

std::string describe(const Distribution& d) {
  std::string text;
  switch (d.kind) {
    case Distribution::Kind::uniform:
      text = fmt::format("uniform[{}, {})", d.a, d.b);
      break;
    case Distribution::Kind::normal:
      text = fmt::format("normal({}, {})", d.a, d.b);
      break;
    case Distribution::Kind::constant:
      text = fmt::format("constant({})", d.a);
      break;
  }
  if (d.outlier_every > 0)
    text += fmt::format(", elements i % {} == 0 set to {}", d.outlier_every, d.outlier_value);
  return text;
}

}  // namespace normbench
