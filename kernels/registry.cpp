#include "kernels/registry.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_set>

namespace normbench {

namespace {
// Function-local static: registrations from other translation units may run before any
// namespace-scope static here is constructed.
std::vector<KernelVariant>& mutable_registry() {
  static std::vector<KernelVariant> variants;
  return variants;
}

bool registry_order(const KernelVariant& a, const KernelVariant& b) {
  if (a.op != b.op) return static_cast<int>(a.op) < static_cast<int>(b.op);
  if (a.is_baseline != b.is_baseline) return a.is_baseline;
  return a.id < b.id;
}
}  // namespace

KernelPlan KernelPlan::declined(std::string why) {
  KernelPlan plan;
  plan.unsupported = std::move(why);
  return plan;
}

bool register_kernel(KernelVariant variant) {
  std::vector<KernelVariant> one;
  one.push_back(std::move(variant));
  register_kernels(std::move(one));
  return true;
}

void register_kernels(std::vector<KernelVariant> added) {
  auto& variants = mutable_registry();
  std::unordered_set<std::string> ids;
  for (const auto& existing : variants) ids.insert(existing.id);
  for (const auto& variant : added) {
    const std::string prefix = std::string(op_name(variant.op)) + ".";
    if (variant.id.rfind(prefix, 0) != 0 || variant.id.size() == prefix.size())
      throw std::logic_error("kernel id '" + variant.id + "' must start with '" + prefix + "'");
    if (!variant.plan) throw std::logic_error("kernel '" + variant.id + "' has no plan");
    if (!ids.insert(variant.id).second)
      throw std::logic_error("kernel id '" + variant.id + "' registered twice");
  }
  for (auto& variant : added) variants.push_back(std::move(variant));
  std::sort(variants.begin(), variants.end(), registry_order);
}

KernelVariant make_variant(Op op, std::string id, std::string description, LaunchFunction launch,
                           UnsupportedFunction unsupported, WorkspaceFunction workspace,
                           bool is_baseline, Accepts accepts) {
  if (!launch) throw std::logic_error("kernel '" + id + "' has no launch");
  KernelVariant v;
  v.op = op;
  v.id = std::move(id);
  v.description = std::move(description);
  v.is_baseline = is_baseline;
  v.accepts = accepts;
  v.plan = [launch, unsupported, workspace](const ProblemShape& p, const DeviceCaps& d) {
    if (unsupported)
      if (auto why = unsupported(p, d)) return KernelPlan::declined(*why);
    KernelPlan plan;
    plan.workspace_bytes = workspace ? workspace(p, d) : 0;
    plan.launch = [launch, p, d](const KernelArgs& args) { return launch(p, d, args); };
    return plan;
  };
  return v;
}

KernelVariant planned_variant(Op op, std::string id, std::string description,
                              decltype(KernelVariant::plan) plan, Accepts accepts) {
  KernelVariant v;
  v.accepts = accepts;
  v.op = op;
  v.id = std::move(id);
  v.description = std::move(description);
  v.plan = std::move(plan);
  return v;
}

const std::vector<KernelVariant>& registered_kernels() {
  return mutable_registry();
}

const KernelVariant* find_kernel(const std::string& id) {
  for (const auto& v : registered_kernels())
    if (v.id == id) return &v;
  return nullptr;
}

std::optional<std::string> declined_format(const KernelVariant& variant,
                                           const ProblemShape& problem) {
  if (variant.op != problem.op) return "kernel is for op " + std::string(op_name(variant.op));
  const Accepts& a = variant.accepts;
  if (!a.low_precision &&
      (problem.dtype != DType::float32 || problem.param_dtype != DType::float32))
    return std::string(
               dtype_name(problem.dtype == DType::float32 ? problem.param_dtype : problem.dtype)) +
           " data: this kernel takes float32 only";
  if (!a.channels_last && problem.channels_last())
    return std::string("channels-last layout: this kernel takes NCHW only");
  if (!a.weight_without_bias && problem.affine && !problem.has_bias)
    return std::string("a weight without a bias: this kernel takes weight and bias together");
  return std::nullopt;
}

KernelPlan plan_kernel(const KernelVariant& variant, const ProblemShape& problem,
                       const DeviceCaps& device) {
  if (auto why = declined_format(variant, problem)) return KernelPlan::declined(*why);
  return variant.plan(problem, device);
}

}  // namespace normbench
