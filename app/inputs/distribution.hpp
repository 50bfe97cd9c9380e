// Input distributions of a config ("uniform", {"dist":"normal","mean":m,"std":s}, ...).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace normbench {

class CheckedJson;

struct Distribution {
  enum class Kind { uniform, normal, constant };
  Kind kind = Kind::uniform;
  double a = 0.0;  // uniform: low;  normal: mean; constant: value
  double b = 1.0;  // uniform: high; normal: std

  static Distribution uniform(double low = 0.0, double high = 1.0) {
    return {Kind::uniform, low, high};
  }
  static Distribution normal(double mean = 0.0, double std = 1.0) {
    return {Kind::normal, mean, std};
  }
  static Distribution constant(double value) { return {Kind::constant, value, 0.0}; }

  bool operator==(const Distribution& o) const { return kind == o.kind && a == o.a && b == o.b; }
};

// Accepts "uniform" (U[0,1), like torch.rand), "normal" (N(0,1)), "ones", "zeros",
// {"dist":"uniform","low":a,"high":b}, {"dist":"normal","mean":m,"std":s},
// {"dist":"constant","value":v}; fails naming the path otherwise.
Distribution parse_distribution(const CheckedJson& node);
// The object form, always: {"dist":"uniform","low":0,"high":1}, ...
nlohmann::json to_json(const Distribution& d);
// Human-readable: "uniform[0, 1)", "normal(1000, 1)", "constant(1)".
std::string describe(const Distribution& d);

}  // namespace normbench
