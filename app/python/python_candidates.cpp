#include "app/python/python_candidates.hpp"

#include <cuda_runtime_api.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "app/device/cuda_check.hpp"
#include "app/python/embedded_python.hpp"
#include "app/python/python_setup.hpp"
#include "app/util/errors.hpp"
#include "app/util/file_safe_name.hpp"
#include "app/util/shown_text.hpp"
#include "app/util/text_file.hpp"
#include "kernels/tensor_roles.hpp"

namespace normbench {

namespace {

using json = nlohmann::json;

std::string id_part(const std::string& text) {
  std::string out;
  for (char c : text)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return out;
}

// Whether `text` is UTF-8: what a JSON text (the bridge's requests) can carry.
bool is_utf8(const std::string& text) {
  try {
    (void)json(text).dump();
    return true;
  } catch (const json::type_error&) {
    return false;
  }
}

// A name as Python's import and getattr take it: ASCII letters, digits and '_', not starting
// with a digit; characters beyond ASCII are left to Python, which allows many of them. A path
// ("a/b"), a relative import ("..") or a space would otherwise fail at every problem's plan, on
// the GPU machine, with Python's words.
bool is_python_name(std::string_view name) {
  const auto part_of_name = [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || u == '_' || u >= 0x80;
  };
  return !name.empty() && !std::isdigit(static_cast<unsigned char>(name.front())) &&
         std::all_of(name.begin(), name.end(), part_of_name);
}

// Python names joined by '.' (pkg.sub.module).
bool is_module_name(std::string_view name) {
  for (size_t start = 0;;) {
    const size_t dot = name.find('.', start);
    if (!is_python_name(name.substr(start, dot == std::string_view::npos ? dot : dot - start)))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// Why a --kernelbench file cannot be a submission, or "": checked before Python is looked for,
// so that a mistyped path is refused at once rather than as an error of every problem.
std::string why_not_a_submission(const std::string& path) {
  if (const std::string why = why_not_a_regular_file(path); !why.empty()) return why;
  // root reads every file whatever its mode; that case is left to Python's import.
  if (access(path.c_str(), R_OK) != 0) return "cannot be read";
  if (path.size() < 3 || path.compare(path.size() - 3, 3, ".py") != 0)
    return "not a .py file (Python imports a submission by its .py name); allowed: FILE.py";
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && st.st_size == 0) return "is empty: it defines no ModelNew";
  // The path reaches the worker's Python in a JSON text, which holds UTF-8 only.
  if (!is_utf8(path)) return "its name is not UTF-8; rename the file";
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) && !is_utf8(resolved))
    return "the name of a folder on its path, or of its link's target, is not UTF-8";
  return "";
}

// How PyTorch computes an op (torch.nn.functional has no single function for some).
std::string torch_form(Op op) {
  switch (op) {
    case Op::layer_norm_gelu_scale:
      return "gelu(layer_norm(x)) * scale";
    case Op::add_rms_norm:
      return "s = x + residual; y = rms_norm(s)";
    case Op::channel_rms_norm:
      return "x / sqrt(mean(x^2, dim=1) + eps), in float32";
    case Op::group_norm_silu:
      return "silu(group_norm(x))";
    case Op::layer_norm_backward:
      return "aten.native_layer_norm_backward";
    case Op::rms_norm_backward:
      return "aten._fused_rms_norm_backward, or its formula";
    case Op::group_norm_backward:
      return "aten.native_group_norm_backward";
    case Op::add_rms_norm_backward:
      return "rms_norm_backward's of s, plus ds_out";
    default:
      return std::string(op_name(op));
  }
}

// The problem as the bridge (and a --python function) sees it.
json problem_json(const ProblemShape& p) {
  json inputs = json::array(), outputs = json::array();
  for (Input input : problem_inputs(p)) inputs.push_back(input_name(input));
  for (Output output : problem_outputs(p)) outputs.push_back(output_name(output));
  return {
      {"backward", p.is_backward()},
      {"inputs", inputs},
      {"outputs", outputs},
      {"stat_shape", tensor_shape(p, TensorKind::statistics)},
      {"op", op_name(p.op)},
      {"shape", p.shape},
      {"normalized_shape", p.normalized_shape.empty() ? json(nullptr) : json(p.normalized_shape)},
      {"groups", p.grouped() ? json(p.groups) : json(nullptr)},
      {"channels", p.channels},
      {"eps", p.eps},
      {"scale", p.scale},
      {"affine", p.affine},
      {"has_bias", p.has_bias},
      {"has_residual", p.has_residual()},
      {"dtype", dtype_name(p.dtype)},
      {"param_dtype", dtype_name(p.param_dtype)},
      {"layout", layout_name(p.layout)},
      {"param_shape", param_shape(p)}};
}

uint64_t address(const void* p) {
  return reinterpret_cast<uint64_t>(p);
}

json launch_request(int64_t handle, const KernelArgs& a) {
  return {{"handle", handle},
          {"x", address(a.x)},
          {"residual", address(a.residual)},
          {"weight", address(a.weight)},
          {"bias", address(a.bias)},
          {"y", address(a.y)},
          {"sum", address(a.sum)},
          {"dy", address(a.dy)},
          {"mean", address(a.mean)},
          {"rstd", address(a.rstd)},
          {"grad_weight", address(a.grad_weight)},
          {"grad_bias", address(a.grad_bias)},
          {"ds_out", address(a.ds_out)},
          {"stream", address(a.stream)}};
}

// A bridge answer with "error" ends the launch with that reason (KernelLaunchError).
void check_answer(const std::string& text) {
  const json answer = json::parse(text);
  if (answer.contains("error")) throw KernelLaunchError(answer.at("error").get<std::string>());
}

KernelVariant candidate_variant(Op op, const std::string& id, const std::string& description,
                                const std::string& origin, const json& candidate,
                                const std::shared_ptr<const PythonSetup>& setup) {
  KernelVariant v;
  v.op = op;
  v.id = id;
  v.description = description;
  v.origin = origin;
  v.python_submission = candidate.at("kind") == "python" || candidate.at("kind") == "kernelbench";
  v.accepts = Accepts::everything();
  v.plan = [candidate, setup](const ProblemShape& p, const DeviceCaps&) {
    int device = 0;
    cudaGetDevice(&device);
    const json request = {
        {"candidate", candidate}, {"problem", problem_json(p)}, {"device", device}};
    KernelPlan plan;
    json answer;
    try {
      answer = json::parse(call_python_bridge(*setup, "plan", request.dump()));
    } catch (const std::exception& e) {
      plan.error = e.what();
      return plan;
    }
    if (answer.contains("unsupported"))
      return KernelPlan::declined(answer.at("unsupported").get<std::string>());
    if (answer.contains("error")) {
      plan.error = answer.at("error").get<std::string>();
      return plan;
    }
    const int64_t handle = answer.at("handle");
    plan.hold_us = kPythonHoldUs;
    plan.launch = [setup, handle](const KernelArgs& a) {
      check_answer(call_python_bridge(*setup, "launch", launch_request(handle, a).dump()));
      return cudaSuccess;
    };
    if (!answer.value("in_place", false))
      plan.finish = [setup, handle](const KernelArgs& a) {
        check_answer(call_python_bridge(*setup, "finish", launch_request(handle, a).dump()));
        return cudaSuccess;
      };
    return plan;
  };
  return v;
}

}  // namespace

std::string callable_id(const std::string& spec) {
  const size_t colon = spec.find(':');
  const bool names = colon != std::string::npos && is_utf8(spec) &&
                     is_module_name(std::string_view(spec).substr(0, colon)) &&
                     is_python_name(std::string_view(spec).substr(colon + 1));
  if (!names)
    throw UsageError("--python " + shown(spec) +
                     ": expected module:function, each a Python name (letters, digits and '_', "
                     "not starting with a digit; a module's parts joined by '.'), e.g. "
                     "my_norms:rms or pkg.norms:rms");
  return "python." + id_part(spec.substr(0, colon)) + "." + id_part(spec.substr(colon + 1));
}

std::string kernelbench_id(const std::string& path) {
  std::string stem = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  if (stem.size() > 3 && stem.compare(stem.size() - 3, 3, ".py") == 0) stem.resize(stem.size() - 3);
  return "kernelbench." + id_part(stem);
}

std::vector<KernelVariant> python_candidates(const PythonCandidateOptions& o) {
  if (!o.any()) return {};
  // torch.compile's own modes; another would fail every problem's plan with one message.
  const std::set<std::string> modes = {"default", "reduce-overhead", "max-autotune",
                                       "max-autotune-no-cudagraphs"};
  if (o.torch && !modes.count(o.compile_mode))
    throw UsageError("--torch-compile-mode " + shown(o.compile_mode) +
                     ": not a mode of torch.compile; allowed: default, reduce-overhead, "
                     "max-autotune, max-autotune-no-cudagraphs");
  struct Candidate {
    std::string id, origin;
    json spec;
    std::string asked;  // the option that asked for it, for messages: "--python m:f"
  };
  std::vector<Candidate> asked;
  if (o.torch) {
    asked.push_back({"torch.eager", "PyTorch", {{"kind", "torch.eager"}}, "--torch"});
    asked.push_back({"torch.compile",
                     "PyTorch",
                     {{"kind", "torch.compile"}, {"mode", o.compile_mode}},
                     "--torch"});
  }
  for (const std::string& spec : o.callables)
    asked.push_back(
        {callable_id(spec), spec, {{"kind", "python"}, {"spec", spec}}, "--python " + shown(spec)});
  for (const std::string& path : o.kernelbench_files) {
    if (const std::string why = why_not_a_submission(path); !why.empty())
      throw UsageError("--kernelbench " + shown(path) + ": " + why);
    char resolved[PATH_MAX];
    const std::string absolute = realpath(path.c_str(), resolved) ? resolved : path;
    asked.push_back({kernelbench_id(path),
                     path,
                     {{"kind", "kernelbench"}, {"path", absolute}},
                     "--kernelbench " + shown(path)});
  }
  std::set<std::string> ids;
  for (const Candidate& c : asked) {
    if (c.id.size() > kMaxFileSafeNameLength)
      throw UsageError(c.asked + ": its id " + shown(c.id) + " is longer than " +
                       std::to_string(kMaxFileSafeNameLength) + " characters");
    if (!ids.insert(c.id).second)
      throw UsageError(c.asked + ": another candidate has the id " + shown(c.id) +
                       " (candidates are told apart by module and function, or file name; "
                       "each may be given once)");
  }

  std::string what = o.torch ? "--torch" : !o.callables.empty() ? "--python" : "--kernelbench";
  const auto setup = std::make_shared<const PythonSetup>(find_python(what));
  const std::string with = " (Python " + setup->version + ", PyTorch " + setup->torch_version + ")";
  std::vector<KernelVariant> variants;
  for (const Candidate& c : asked)
    for (Op op : kAllOps) {
      std::string description;
      const std::string kind = c.spec.at("kind");
      // The forward ops through torch.nn.functional, the backward ops through aten's own.
      const std::string form =
          is_backward(op) ? torch_form(op) : "torch.nn.functional (" + torch_form(op) + ")";
      if (kind == "torch.eager")
        description = "PyTorch eager: " + form + with;
      else if (kind == "torch.compile")
        description = "torch.compile (mode " + o.compile_mode + ", fullgraph, static shapes) of " +
                      form + with;
      else if (kind == "python")
        description = "Python function " + c.origin + with;
      else
        description = "KernelBench-style ModelNew from " + c.origin + with;
      variants.push_back(candidate_variant(op, c.id, description, c.origin, c.spec, setup));
    }
  return variants;
}

}  // namespace normbench
