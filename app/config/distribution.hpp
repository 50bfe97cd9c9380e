// Input distributions of a config ("uniform", {"dist":"normal","mean":m,"std":s}, ...).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace normbench {

class CheckedJson;

struct Distribution {
  enum class Kind { uniform, normal, constant };
  Kind kind = Kind::uniform;
  double a = 0.0;  // uniform: low;  normal: mean; constant: value
  double b = 1.0;  // uniform: high; normal: std
  // > 0: element i with i % outlier_every == 0 is outlier_value instead (uniform and normal):
  // with outlier_every = the row length, every row's first element is an outlier, as the few
  // hidden channels of LLM activations that are orders of magnitude above the rest.
  int64_t outlier_every = 0;
  double outlier_value = 0.0;

  static Distribution uniform(double low = 0.0, double high = 1.0) {
    return {Kind::uniform, low, high};
  }
  static Distribution normal(double mean = 0.0, double std = 1.0) {
    return {Kind::normal, mean, std};
  }
  static Distribution constant(double value) { return {Kind::constant, value, 0.0}; }

  bool operator==(const Distribution& o) const {
    return kind == o.kind && a == o.a && b == o.b && outlier_every == o.outlier_every &&
           outlier_value == o.outlier_value;
  }
};

// The largest |z| the normal generator draws (app/inputs/inputs.cpp: Box-Muller with its first
// uniform at least 2^-53), sqrt(-2 ln 2^-53): every normal element lies within mean +- this many
// std, so a config whose mean and std are finite can still draw infinities, which the config
// check refuses.
constexpr double kLargestNormalDeviate = 8.5717;  // sqrt(106 ln 2) = 8.57167..., rounded up

// Accepts "uniform" (U[0,1), like torch.rand), "normal" (N(0,1)), "ones", "zeros",
// {"dist":"uniform","low":a,"high":b}, {"dist":"normal","mean":m,"std":s} (both objects with
// optional "outlier_every": k >= 1 and "outlier_value": v, together),
// {"dist":"constant","value":v}; fails naming the path otherwise.
Distribution parse_distribution(const CheckedJson& node);
// The object form, always: {"dist":"uniform","low":0,"high":1}, ...
nlohmann::json to_json(const Distribution& d);
// Its numbers by their names in the config ("low", "high", "mean", "std", "value",
// "outlier_value"), those its form has.
std::vector<std::pair<std::string, double>> distribution_values(const Distribution& d);
// Human-readable: "uniform[0, 1)", "normal(1000, 1)", "constant(1)",
// "normal(0, 1), elements i % 4096 == 0 set to 100".
std::string describe(const Distribution& d);

}  // namespace normbench
