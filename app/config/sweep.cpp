#include "app/config/sweep.hpp"

#include <fmt/format.h>

#include <limits>
#include <regex>
#include <set>

#include "app/util/shown_text.hpp"
#include "kernels/problem_shape.hpp"

namespace normbench {

namespace {

struct Axis {
  std::string key;  // as written: "rows", "shape[2]", "dtype", "groups"
  std::string tag;  // in ids: "rows", "shape2", "dtype", "groups"
  int dim = -1;     // the shape dim it sets, for rows and shape[k]
  std::vector<nlohmann::json> values;
};

Axis parse_axis(const CheckedJson& sweep, const std::string& key, const nlohmann::json& problem) {
  static const std::regex shape_key(R"(shape\[(0|[1-9][0-9]{0,2})\])");
  const CheckedJson values = sweep.at(key);
  Axis a;
  a.key = key;
  std::smatch m;
  const std::string op = problem.value("op", "");
  const auto known = op_from_name(op);  // an unknown op is the problem parser's to name
  const bool is_group_norm = known && is_grouped(*known);
  if (key == "rows") {
    a.tag = "rows";
    a.dim = 0;
  } else if (std::regex_match(key, m, shape_key)) {
    a.dim = std::stoi(m[1]);
    a.tag = "shape" + m[1].str();
  } else if (key == "dtype" || (key == "groups" && is_group_norm)) {
    a.tag = key;
  } else {
    sweep.fail("unknown axis \"" + shown(key) + "\"; allowed: rows, shape[k], dtype" +
               (is_group_norm ? ", groups" : ""));
  }
  if (a.dim >= 0) {
    const auto shape = problem.find("shape");
    if (shape == problem.end() || !shape->is_array() || static_cast<size_t>(a.dim) >= shape->size())
      values.fail(fmt::format("{} sets dim {} of shape, which has no such dim; allowed: {}", key,
                              a.dim,
                              shape != problem.end() && shape->is_array() && !shape->empty()
                                  ? fmt::format("shape[0] to shape[{}]", shape->size() - 1)
                                  : std::string("a dim of the problem's shape array")));
  }
  values.expect_array();
  if (values.size() == 0 || values.size() > kMaxSweepValues)
    values.fail(fmt::format("{} values; allowed: 1 to {}", values.size(), kMaxSweepValues));
  std::set<std::string> seen;
  for (size_t i = 0; i < values.size(); ++i) {
    const CheckedJson v = values.at(i);
    if (a.key == "dtype") {
      const std::string name = v.as_string();
      if (!dtype_from_name(name))
        v.fail("unknown dtype \"" + name + "\"; allowed: float32, bfloat16, float16");
      a.values.push_back(name);
    } else {
      a.values.push_back(v.as_int(1, int64_t{1} << 40));
    }
    if (!seen.insert(a.values.back().dump()).second)
      v.fail("appears twice in the sweep; allowed: each value once");
  }
  return a;
}

// `problem` with `axis` set to `value`.
void set_value(nlohmann::json& problem, const Axis& axis, const nlohmann::json& value) {
  if (axis.dim < 0) {
    problem[axis.key] = value;
    return;
  }
  nlohmann::json& shape = problem["shape"];
  const auto rank = static_cast<int>(shape.size());
  shape[static_cast<size_t>(axis.dim)] = value;
  // A dim of normalized_shape (its trailing dims) moves with the shape.
  auto normalized = problem.find("normalized_shape");
  if (normalized == problem.end() || !normalized->is_array()) return;
  const int first_normalized = rank - static_cast<int>(normalized->size());
  if (axis.dim >= first_normalized)
    (*normalized)[static_cast<size_t>(axis.dim - first_normalized)] = value;
}

std::string value_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

std::vector<SweepPoint> expand_sweep(const CheckedJson& problem) {
  const CheckedJson sweep = problem.at("sweep");
  if (!sweep.node().is_object() || sweep.node().empty())
    sweep.fail("expected an object of axes, e.g. {\"rows\": [1, 8, 64]}");
  std::vector<Axis> axes;
  for (const auto& item : sweep.node().items()) {
    axes.push_back(parse_axis(sweep, item.key(), problem.node()));
    // rows is shape[0]: swept with it, one axis's value would overwrite the other's in every
    // point while the ids named both.
    for (size_t a = 0; a + 1 < axes.size(); ++a)
      if (axes[a].dim >= 0 && axes[a].dim == axes.back().dim)
        sweep.fail(fmt::format("{} and {} both set dim {} of shape; allowed: one axis per dim",
                               axes[a].key, axes.back().key, axes.back().dim));
  }
  // With up to 64 values on each of a dozen axes the product can pass 2^64, and wrapped it
  // would pass the bound (2^64 wraps to 0 points); past size_t the message gives it rounded.
  size_t points = 1;
  double approximate_points = 1.0;
  bool overflowed = false;
  for (const Axis& a : axes) {
    const size_t n = a.values.size();  // at least 1
    overflowed = overflowed || points > std::numeric_limits<size_t>::max() / n;
    if (!overflowed) points *= n;
    approximate_points *= static_cast<double>(n);
  }
  if (overflowed)
    sweep.fail(fmt::format("about {:.3g} points; allowed: at most {}", approximate_points,
                           kMaxSweepPoints));
  if (points > kMaxSweepPoints)
    sweep.fail(fmt::format("{} points; allowed: at most {}", points, kMaxSweepPoints));

  const std::string id = problem.at("id").as_string();
  nlohmann::json base = problem.node();
  base.erase("sweep");
  std::vector<SweepPoint> out;
  std::vector<size_t> at(axes.size(), 0);  // the point: an index into each axis's values
  for (size_t n = 0; n < points; ++n) {
    SweepPoint p;
    p.problem = base;
    p.point = nlohmann::json::object();
    std::string id_suffix, where;
    for (size_t a = 0; a < axes.size(); ++a) {
      const nlohmann::json& value = axes[a].values[at[a]];
      set_value(p.problem, axes[a], value);
      p.point[axes[a].key] = value;
      id_suffix += "." + axes[a].tag + "-" + value_text(value);
      where += (where.empty() ? "" : ",") + axes[a].key + "=" + value_text(value);
    }
    p.problem["id"] = id + id_suffix;
    p.path = problem.path() + "[" + where + "]";
    out.push_back(std::move(p));
    // The next point: the last axis varies fastest.
    for (size_t a = axes.size(); a-- > 0;) {
      if (++at[a] < axes[a].values.size()) break;
      at[a] = 0;
    }
  }
  return out;
}

}  // namespace normbench
