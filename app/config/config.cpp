#include "app/config/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "app/config/sweep.hpp"
#include "app/util/errors.hpp"
#include "app/util/file_safe_name.hpp"
#include "app/util/hashing.hpp"
#include "app/util/json_checks.hpp"
#include "app/util/json_parse.hpp"
#include "app/util/shown_text.hpp"
#include "app/util/text_file.hpp"
#include "kernels/tensor_roles.hpp"
#include "reference/low_precision.hpp"

namespace normbench {

// Defined in the generated builtin_config.cpp: the text of configs/kernelbench.json.
const char* builtin_config_text();

namespace {

// Everything `defaults` may set and any problem may override.
struct Settings {
  DType dtype = DType::float32;
  // Unset: the dtype. Where it was set, for the message when it does not fit the dtype.
  std::optional<DType> param_dtype;
  std::string param_dtype_path;
  double eps = 1e-5;
  std::string eps_path;  // where it was set; empty: the default
  bool affine = true;
  // Unset: the dtype's default (default_tolerance), key by key.
  std::optional<double> rtol, atol;
  std::map<std::string, Distribution> inputs = {{"x", Distribution::uniform()},
                                                {"residual", Distribution::normal()},
                                                {"weight", Distribution::normal()},
                                                {"bias", Distribution::normal()}};
  // Where each was set; absent: the default (dy's and ds_out's default is x's distribution).
  std::map<std::string, std::string> input_paths;
  uint64_t seed = 42;
  int trials = 3;
  TimingSettings timing;
};

#define NORMBENCH_SETTING_KEYS \
  "dtype", "param_dtype", "eps", "affine", "tolerance", "inputs", "seed", "trials", "timing"

DType parse_dtype(const CheckedJson& node) {
  const std::string name = node.as_string();
  if (auto dtype = dtype_from_name(name)) return *dtype;
  node.fail("unsupported dtype \"" + shown(name) + "\"; allowed: float32, bfloat16, float16");
}

void apply_tolerance(const CheckedJson& node, Settings& s) {
  node.expect_object({"rtol", "atol"});
  if (node.has("rtol")) s.rtol = node.at("rtol").as_number_at_least(0.0);
  if (node.has("atol")) s.atol = node.at("atol").as_number_at_least(0.0);
}

void apply_timing(const CheckedJson& node, TimingSettings& t) {
  node.expect_object(
      {"warmup", "min_samples", "max_noise", "max_time_s", "flush_l2", "kernel_timeout_s"});
  if (node.has("warmup")) t.warmup = static_cast<int>(node.at("warmup").as_int(0, 1000000));
  if (node.has("min_samples"))
    t.min_samples = static_cast<int>(node.at("min_samples").as_int(1, 1000000));
  if (node.has("max_noise")) t.max_noise = node.at("max_noise").as_number_above(0.0);
  if (node.has("max_time_s")) t.max_time_s = node.at("max_time_s").as_number_above(0.0);
  if (node.has("flush_l2")) t.flush_l2 = node.at("flush_l2").as_bool();
  if (node.has("kernel_timeout_s"))
    t.kernel_timeout_s = node.at("kernel_timeout_s").as_number_above(0.0);
}

// Reads the setting keys present in `node` over `s`; nested objects override key by key.
void apply_settings(const CheckedJson& node, Settings& s) {
  if (node.has("dtype")) s.dtype = parse_dtype(node.at("dtype"));
  if (node.has("param_dtype")) {
    s.param_dtype = parse_dtype(node.at("param_dtype"));
    s.param_dtype_path = node.at("param_dtype").path();
  }
  if (node.has("eps")) {
    s.eps = node.at("eps").as_number_above(0.0);
    s.eps_path = node.at("eps").path();
  }
  if (node.has("affine")) s.affine = node.at("affine").as_bool();
  if (node.has("tolerance")) apply_tolerance(node.at("tolerance"), s);
  if (node.has("inputs")) {
    const auto inputs = node.at("inputs");
    inputs.expect_object({"x", "residual", "weight", "bias", "dy", "ds_out"});
    for (const auto& item : inputs.node().items()) {
      s.inputs[item.key()] = parse_distribution(inputs.at(item.key()));
      s.input_paths[item.key()] = inputs.at(item.key()).path();
    }
  }
  if (node.has("seed")) s.seed = node.at("seed").as_uint64();
  if (node.has("trials")) s.trials = static_cast<int>(node.at("trials").as_int(1, 1000000));
  if (node.has("timing")) apply_timing(node.at("timing"), s.timing);
}

// Ids name --save-tensors folders and --problem arguments (file_safe_name.hpp).
void check_id(const CheckedJson& node, const std::string& id, std::set<std::string>& seen) {
  if (!is_file_safe_name(id))
    node.fail("\"" + shown(id) + "\" is not a valid id; allowed: " + kFileSafeNameRule);
  if (!seen.insert(id).second) node.fail("duplicate problem id \"" + shown(id) + "\"");
}

Op parse_op(const CheckedJson& node) {
  const std::string name = node.as_string();
  if (auto op = op_from_name(name)) return *op;
  std::string allowed;
  for (Op op : kAllOps) allowed += (allowed.empty() ? "" : ", ") + std::string(op_name(op));
  node.fail("unknown op \"" + shown(name) + "\"; allowed: " + allowed);
}

// The last k dims of `shape`, as a hint for messages.
std::string suffix_examples(const std::vector<int64_t>& shape) {
  std::string out;
  for (size_t k = 1; k <= shape.size() && k <= 3; ++k) {
    std::vector<int64_t> suffix(shape.end() - static_cast<long>(k), shape.end());
    out += (out.empty() ? "" : " or ") + format_dims(suffix);
  }
  return out;
}

// dtype, param_dtype (the dtype or float32), layout (the GroupNorm ops) and bias (the centered
// ops).
// Which ops may name layout and bias is decided by each op's allowed keys (parse_problem).
ProblemFormat parse_format(const CheckedJson& node, const Settings& s) {
  ProblemFormat f;
  f.dtype = s.dtype;
  f.param_dtype = s.param_dtype.value_or(s.dtype);
  if (f.param_dtype != f.dtype && f.param_dtype != DType::float32) {
    const std::string dtype(dtype_name(f.dtype));
    node.fail("param_dtype " + std::string(dtype_name(f.param_dtype)) + " (" + s.param_dtype_path +
              ") does not fit dtype " + dtype +
              "; allowed: " + (f.dtype == DType::float32 ? dtype : dtype + " or float32"));
  }
  if (node.has("layout")) {
    const auto layout_node = node.at("layout");
    const std::string name = layout_node.as_string();
    const auto layout = layout_from_name(name);
    if (!layout) layout_node.fail("unknown layout \"" + shown(name) + "\"; allowed: nchw, nhwc");
    f.layout = *layout;
  }
  if (node.has("bias")) f.has_bias = node.at("bias").as_bool();
  return f;
}

ProblemShape parse_shape(const CheckedJson& node, Op op, const Settings& s) {
  const auto shape = node.at("shape").as_dims();
  std::vector<int64_t> normalized;
  int64_t groups = 0;
  double scale = 1.0;
  if (op == Op::channel_rms_norm) {
    if (shape.size() < 2)
      node.at("shape").fail("channel_rms_norm needs shape (N, C, spatial...); got " +
                            format_dims(shape) + "; allowed: 2 or more dims");
  } else if (is_grouped(op)) {
    if (shape.size() < 2)
      node.at("shape").fail(std::string(op_name(op)) + " needs shape (N, C, spatial...); got " +
                            format_dims(shape) + "; allowed: 2 or more dims");
    const auto groups_node = node.at("groups");
    groups = groups_node.as_int(1, shape[1]);
    if (shape[1] % groups != 0)
      groups_node.fail(std::to_string(groups) + " does not divide the channel count " +
                       std::to_string(shape[1]) + " (shape[1]); allowed: a divisor of " +
                       std::to_string(shape[1]));
  } else {
    const auto normalized_node = node.at("normalized_shape");
    normalized = normalized_node.as_dims();
    const bool is_suffix = normalized.size() <= shape.size() &&
                           std::equal(normalized.rbegin(), normalized.rend(), shape.rbegin());
    if (!is_suffix)
      normalized_node.fail(format_dims(normalized) + " is not a suffix of shape " +
                           format_dims(shape) + "; allowed: the trailing dims of shape, e.g. " +
                           suffix_examples(shape));
    if (op == Op::layer_norm_gelu_scale && node.has("scale"))
      scale = node.at("scale").as_finite_number();
  }
  return make_problem_shape(op, shape, normalized, groups, s.eps, scale, s.affine,
                            parse_format(node, s));
}

// The largest finite value of `dtype`.
double largest_finite(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return std::numeric_limits<float>::max();
    case DType::bfloat16:
      return bfloat16_value(0x7F7F);
    case DType::float16:
      return float16_value(0x7BFF);  // 65504
  }
  return 0.0;
}

std::string overflow_text(double value, DType dtype, const std::string& where) {
  const std::string name(dtype_name(dtype));
  const std::string largest = fmt::format("{}", largest_finite(dtype));
  return fmt::format(
      "{} overflows {}{} (its largest finite value is {}); allowed: a magnitude of "
      "at most {}",
      value, name, where, largest, largest);
}

// Every number of the inputs' distributions must be finite in the type of its tensor, and so
// must every value a normal distribution draws (|mean| + kLargestNormalDeviate std), eps
// finite and normal in float32, in which every kernel adds it to the variance, and
// layer_norm_gelu_scale's scale finite in the output's type: a constant 1e300 would make every
// input infinite, in float32 as in float16, and a scale of 1e300 every output.
void check_values_fit_types(const CheckedJson& node, const ProblemConfig& p, const Settings& s) {
  // A value set in the defaults fails for one problem (or one point of its sweep): name it.
  const auto fail_at = [&](const std::string& path, const std::string& message) {
    const bool own = path.rfind(node.path(), 0) == 0;
    node.fail_at(path, own ? message : message + " (in problem " + node.path() + ")");
  };
  for (const auto& [name, distribution] : p.inputs) {
    const bool is_param = name == "weight" || name == "bias";
    const DType dtype = is_param ? p.shape.param_dtype : p.shape.dtype;
    const auto at = s.input_paths.find(name);
    if (at == s.input_paths.end()) continue;  // a default distribution, of small numbers
    const std::string where = is_param ? ", the problem's param_dtype" : "";
    for (const auto& [field, value] : distribution_values(distribution))
      if (!std::isfinite(round_to_dtype(value, dtype)))
        fail_at(at->second + "/" + field, overflow_text(value, dtype, where));
    if (distribution.kind == Distribution::Kind::normal) {
      // The draws reach mean +- kLargestNormalDeviate std: all of them must be finite too.
      const double mean = distribution.a, std = distribution.b;
      const double farthest = std::fabs(mean) + kLargestNormalDeviate * std;
      if (!std::isfinite(round_to_dtype(farthest, dtype)))
        fail_at(at->second,
                fmt::format("normal({}, {}) draws values up to |mean| + {} std = {:.4g}, which "
                            "overflows {}{} (its largest finite value is {}); allowed: |mean| + {} "
                            "std at most that",
                            mean, std, kLargestNormalDeviate, farthest, dtype_name(dtype), where,
                            largest_finite(dtype), kLargestNormalDeviate));
    }
  }
  if (!std::isfinite(round_to_dtype(p.shape.eps, DType::float32)))
    fail_at(s.eps_path, overflow_text(p.shape.eps, DType::float32,
                                      ", in which kernels add eps to the variance"));
  // Below the smallest normal float32 eps rounds to 0, or to a subnormal that kernels built to
  // flush subnormals make 0: a row of zeros would then divide by zero.
  const float smallest_normal = std::numeric_limits<float>::min();
  if (round_to_dtype(p.shape.eps, DType::float32) < smallest_normal)
    fail_at(s.eps_path,
            fmt::format("{} underflows float32, in which kernels add eps to the variance (its "
                        "smallest normal value is {}); allowed: at least {}",
                        p.shape.eps, smallest_normal, smallest_normal));
  if (p.shape.op == Op::layer_norm_gelu_scale && node.has("scale") &&
      !std::isfinite(round_to_dtype(p.shape.scale, p.shape.dtype)))
    node.at("scale").fail(
        overflow_text(p.shape.scale, p.shape.dtype, ", the type of the outputs it multiplies"));
}

nlohmann::json settings_json(const ProblemConfig& p) {
  nlohmann::json inputs = nlohmann::json::object();
  for (const auto& [name, dist] : p.inputs) inputs[name] = to_json(dist);
  const auto& t = p.timing;
  nlohmann::json timing = {{"warmup", t.warmup},
                           {"min_samples", t.min_samples},
                           {"max_noise", t.max_noise},
                           {"max_time_s", t.max_time_s},
                           {"flush_l2", t.flush_l2}};
  // Written only when it is not the default, so that configs written before the option
  // existed keep their hash (and their committed reports stay comparable).
  if (t.kernel_timeout_s != TimingSettings{}.kernel_timeout_s)
    timing["kernel_timeout_s"] = t.kernel_timeout_s;
  const ProblemShape& shape = p.shape;
  nlohmann::json j = {{"dtype", dtype_name(shape.dtype)},
                      {"eps", shape.eps},
                      {"affine", shape.affine},
                      {"tolerance", {{"rtol", p.tolerance.rtol}, {"atol", p.tolerance.atol}}},
                      {"inputs", inputs},
                      {"seed", p.seed},
                      {"trials", p.trials},
                      {"timing", timing}};
  // Likewise written only where they differ from what every earlier config meant.
  if (shape.param_dtype != shape.dtype) j["param_dtype"] = dtype_name(shape.param_dtype);
  if (shape.channels_last()) j["layout"] = layout_name(shape.layout);
  if (shape.affine && shape.centered() && !shape.has_bias) j["bias"] = false;
  return j;
}

// channel_rms_norm always normalizes dim 1 of contiguous NCHW x, without a bias: the fields
// that choose what other ops normalize or store are refused with what it does instead.
void refuse_channel_rms_norm_fields(const CheckedJson& node) {
  const char* fixed =
      "channel_rms_norm normalizes dim 1 (the channels, shape[1]) at each "
      "(sample, spatial position)";
  if (node.has("normalized_shape"))
    node.at("normalized_shape")
        .fail(std::string(fixed) +
              ", so it takes no normalized_shape; allowed: leave it out "
              "(rms_norm normalizes trailing dims)");
  if (node.has("groups"))
    node.at("groups").fail(std::string(fixed) +
                           ", so it takes no groups; allowed: leave it out (group_norm with "
                           "groups = C normalizes each channel over the spatial dims)");
  if (node.has("layout"))
    node.at("layout").fail(
        "channel_rms_norm takes contiguous NCHW x only; allowed: leave layout out");
  if (node.has("bias"))
    node.at("bias").fail(
        "channel_rms_norm has no bias, as rms_norm; allowed: leave bias out (affine: false "
        "drops the weight)");
}

// An input named on the problem itself that its op never reads is a mistake (the defaults may
// name inputs for other problems' ops). Weight and bias count where affine and bias could
// make the op read them, since a sweep may vary those.
void refuse_inputs_the_op_lacks(const CheckedJson& node, const ProblemShape& shape) {
  if (!node.has("inputs")) return;
  ProblemShape widest = shape;
  widest.affine = true;
  widest.has_bias = shape.centered() && !shape.is_backward();
  std::vector<std::string> taken;
  for (Input input : problem_inputs(widest))
    if (tensor_kind(input) != TensorKind::statistics) taken.emplace_back(input_name(input));
  const auto inputs = node.at("inputs");
  for (const auto& item : inputs.node().items()) {
    if (std::find(taken.begin(), taken.end(), item.key()) != taken.end()) continue;
    std::string allowed;
    for (const std::string& name : taken) allowed += (allowed.empty() ? "" : ", ") + name;
    inputs.at(item.key())
        .fail(std::string(op_name(shape.op)) + " reads no " + item.key() + "; allowed: " + allowed);
  }
}

ProblemConfig parse_problem(const CheckedJson& node, const Settings& defaults,
                            std::set<std::string>& seen_ids) {
  if (!node.node().is_object())
    node.fail("expected a problem object, got " + shown(node.node().dump()));
  const auto op_node = node.at("op");
  const Op op = parse_op(op_node);
  switch (op) {
    case Op::group_norm:
    case Op::group_norm_silu:      // group_norm's fields: only the output differs
    case Op::group_norm_backward:  // and its gradients
      node.expect_object(
          {"id", "description", "op", "shape", "groups", "layout", "bias", NORMBENCH_SETTING_KEYS});
      break;
    case Op::layer_norm:
    case Op::layer_norm_backward:
      node.expect_object(
          {"id", "description", "op", "shape", "normalized_shape", "bias", NORMBENCH_SETTING_KEYS});
      break;
    case Op::layer_norm_gelu_scale:
      node.expect_object({"id", "description", "op", "shape", "normalized_shape", "scale", "bias",
                          NORMBENCH_SETTING_KEYS});
      break;
    case Op::rms_norm:
    case Op::add_rms_norm:  // no bias: torch.nn.functional.rms_norm has none
    case Op::rms_norm_backward:
    case Op::add_rms_norm_backward:
      node.expect_object(
          {"id", "description", "op", "shape", "normalized_shape", NORMBENCH_SETTING_KEYS});
      break;
    case Op::channel_rms_norm:
      refuse_channel_rms_norm_fields(node);
      node.expect_object({"id", "description", "op", "shape", NORMBENCH_SETTING_KEYS});
      break;
  }

  ProblemConfig p;
  p.id = node.at("id").as_string();
  check_id(node.at("id"), p.id, seen_ids);
  if (node.has("description")) p.description = node.at("description").as_string();
  Settings s = defaults;
  apply_settings(node, s);
  p.shape = parse_shape(node, op, s);
  refuse_inputs_the_op_lacks(node, p.shape);
  const Tolerance dtype_default = default_tolerance(p.shape.dtype);
  p.tolerance = {s.rtol.value_or(dtype_default.rtol), s.atol.value_or(dtype_default.atol)};
  const Tolerance param_default = default_tolerance(p.shape.param_dtype);
  p.param_tolerance = {s.rtol.value_or(param_default.rtol), s.atol.value_or(param_default.atol)};
  for (Input input : problem_inputs(p.shape)) {
    if (tensor_kind(input) == TensorKind::statistics) continue;  // computed from x
    const std::string name = input_name(input);
    // The gradients dy and ds_out are drawn like x unless the config says otherwise.
    const bool gradient = input == Input::dy || input == Input::ds_out;
    const bool like_x = gradient && s.input_paths.count(name) == 0;
    p.inputs[name] = s.inputs.at(like_x ? "x" : name);
  }
  check_values_fit_types(node, p, s);
  p.seed = s.seed;
  p.trials = s.trials;
  p.timing = s.timing;

  p.resolved = {{"id", p.id}, {"op", op_name(op)}, {"shape", p.shape.shape}};
  if (!p.description.empty()) p.resolved["description"] = p.description;
  if (p.shape.grouped())
    p.resolved["groups"] = p.shape.groups;
  else if (op != Op::channel_rms_norm)  // it normalizes dim 1 whatever the config says
    p.resolved["normalized_shape"] = p.shape.normalized_shape;
  if (op == Op::layer_norm_gelu_scale) p.resolved["scale"] = p.shape.scale;
  p.resolved.update(settings_json(p));
  // Backward ops have outputs of param_dtype (dweight, dbias), with a tolerance of their own.
  if (p.shape.is_backward() && p.shape.affine)
    p.resolved["param_tolerance"] = {{"rtol", p.param_tolerance.rtol},
                                     {"atol", p.param_tolerance.atol}};
  return p;
}

}  // namespace

Tolerance default_tolerance(DType dtype) {
  if (dtype == DType::float32) return {1e-5, 1e-5};
  const double u = unit_roundoff(dtype);
  return {2.0 * u, 4.0 * u};
}

RunConfig parse_config(const std::string& text, const std::string& source) {
  const nlohmann::json doc = parse_json_text(text, source);
  const CheckedJson root(doc, source);
  root.expect_object({"$schema", "name", "description", "defaults", "problems", "plugins"});

  RunConfig config;
  config.source = source;
  config.name = root.at("name").as_string();
  // The default report is normbench-<name>.json in the working folder.
  if (!is_file_safe_name(config.name))
    root.at("name").fail("\"" + shown(config.name) +
                         "\" is not a valid name; allowed: " + kFileSafeNameRule);
  if (root.has("description")) config.description = root.at("description").as_string();

  if (root.has("plugins")) {
    const auto plugins = root.at("plugins");
    plugins.expect_array();
    const std::filesystem::path folder = std::filesystem::path(source).parent_path();
    for (size_t i = 0; i < plugins.size(); ++i) {
      const std::string path = plugins.at(i).as_string();
      if (path.empty()) plugins.at(i).fail("expected a plugin file path, got \"\"");
      const std::filesystem::path p(path);
      config.plugins.push_back(p.is_absolute() ? path : (folder / p).string());
    }
  }

  Settings defaults;
  if (root.has("defaults")) {
    const auto node = root.at("defaults");
    node.expect_object({NORMBENCH_SETTING_KEYS});
    apply_settings(node, defaults);
  }

  const auto problems = root.at("problems");
  problems.expect_array();
  if (problems.size() == 0) problems.fail("expected at least one problem");
  std::set<std::string> seen_ids;
  nlohmann::json resolved_problems = nlohmann::json::array();
  for (size_t i = 0; i < problems.size(); ++i) {
    const CheckedJson problem = problems.at(i);
    if (config.problems.size() >= kMaxProblems)
      problem.fail(
          fmt::format("the config makes more than {} problems (sweeps' points "
                      "included); allowed: at most {}, split it into several configs",
                      kMaxProblems, kMaxProblems));
    if (!problem.node().is_object() || !problem.has("sweep")) {
      config.problems.push_back(parse_problem(problem, defaults, seen_ids));
      resolved_problems.push_back(config.problems.back().resolved);
      continue;
    }
    const std::string family = problem.at("id").as_string();
    const std::vector<SweepPoint> points = expand_sweep(problem);
    if (config.problems.size() + points.size() > kMaxProblems)
      problem.at("sweep").fail(fmt::format(
          "its {} points take the config past {} problems ({} before it); allowed: at most {} "
          "problems, sweeps' points included: split it into several configs",
          points.size(), kMaxProblems, config.problems.size(), kMaxProblems));
    for (const SweepPoint& point : points) {
      ProblemConfig p =
          parse_problem(CheckedJson(point.problem, source, point.path), defaults, seen_ids);
      p.resolved["sweep"] = {{"family", family}, {"point", point.point}};
      resolved_problems.push_back(p.resolved);
      config.problems.push_back(std::move(p));
    }
  }
  config.resolved = {{"name", config.name}, {"problems", resolved_problems}};
  if (!config.description.empty()) config.resolved["description"] = config.description;
  config.hash = fnv1a64_hex(config.resolved.dump());
  return config;
}

RunConfig load_config_file(const std::string& path) {
  return parse_config(read_text_file(path, "config", kMaxConfigBytes), path);
}

RunConfig builtin_config() {
  return parse_config(builtin_config_text(), "<built-in configs/kernelbench.json>");
}

}  // namespace normbench
