#include "app/render/report_training.hpp"

#include <optional>
#include <string>

namespace normbench {
namespace {

constexpr const char* kBackwardSuffix = "_backward";

// The fields that make a forward and a backward problem the same geometry and format; absent
// fields take their defaults in both, so absent equals absent.
constexpr const char* kFormatFields[] = {"shape",       "normalized_shape", "groups", "dtype",
                                         "param_dtype", "layout",           "affine", "bias",
                                         "eps"};

std::optional<std::string> forward_op(const std::string& op) {
  const std::string suffix = kBackwardSuffix;
  if (op.size() <= suffix.size() || op.compare(op.size() - suffix.size(), suffix.size(), suffix))
    return std::nullopt;
  return op.substr(0, op.size() - suffix.size());
}

bool same_format(const nlohmann::json& a, const nlohmann::json& b) {
  if (!a.is_object() || !b.is_object()) return false;
  for (const char* field : kFormatFields) {
    const auto x = a.find(field), y = b.find(field);
    const bool has_x = x != a.end(), has_y = y != b.end();
    if (has_x != has_y || (has_x && *x != *y)) return false;
  }
  return true;
}

std::optional<double> median_of(const ReportProblem& p, const std::string& id) {
  const ReportKernel* k = find_report_kernel(p, id);
  if (!k || !k->timing) return std::nullopt;
  return k->timing->median_ms;
}

ReportCell time_cell(std::optional<double> ms) {
  return ms ? report_cell(format_time(*ms)) : no_value_cell();
}

}  // namespace

std::vector<TrainingPair> training_pairs(const ReportModel& model) {
  std::vector<TrainingPair> pairs;
  for (const ReportProblem& backward : model.problems) {
    const std::optional<std::string> op = forward_op(backward.op);
    if (!op) continue;
    for (const ReportProblem& forward : model.problems)
      if (forward.op == *op && same_format(forward.identity, backward.identity)) {
        pairs.push_back({&forward, &backward});
        break;
      }
  }
  return pairs;
}

ReportTable training_table(const ReportModel& model) {
  ReportTable t;
  t.headers = {
      "Backward problem",   "Forward problem", "Forward default", "Backward default", "Step",
      "torch.compile step", "vs torch.compile"};
  t.numeric = {false, false, true, true, true, true, true};
  for (const TrainingPair& pair : training_pairs(model)) {
    const auto forward = median_of(*pair.forward, pair.forward->op + ".default");
    const auto backward = median_of(*pair.backward, pair.backward->op + ".default");
    const auto compile_forward = median_of(*pair.forward, kTorchCompileId);
    const auto compile_backward = median_of(*pair.backward, kTorchCompileId);
    std::optional<double> step, compile_step;
    if (forward && backward) step = *forward + *backward;
    if (compile_forward && compile_backward) compile_step = *compile_forward + *compile_backward;
    std::optional<double> ratio;
    if (step && compile_step) ratio = *compile_step / *step;
    t.rows.push_back({report_cell(pair.backward->id), report_cell(pair.forward->id),
                      time_cell(forward), time_cell(backward), time_cell(step),
                      time_cell(compile_step), speedup_cell(ratio)});
  }
  return t;
}

}  // namespace normbench
