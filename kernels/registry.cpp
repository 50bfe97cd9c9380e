#include "kernels/registry.hpp"

#include <algorithm>
#include <stdexcept>

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

bool register_kernel(KernelVariant variant) {
  auto& variants = mutable_registry();
  const std::string prefix = std::string(op_name(variant.op)) + ".";
  if (variant.id.rfind(prefix, 0) != 0 || variant.id.size() == prefix.size())
    throw std::logic_error("kernel id '" + variant.id + "' must start with '" + prefix + "'");
  if (!variant.launch) throw std::logic_error("kernel '" + variant.id + "' has no launch");
  for (const auto& existing : variants)
    if (existing.id == variant.id)
      throw std::logic_error("kernel id '" + variant.id + "' registered twice");
  variants.push_back(std::move(variant));
  std::sort(variants.begin(), variants.end(), registry_order);
  return true;
}

KernelVariant make_variant(Op op, std::string id, std::string description,
                           decltype(KernelVariant::launch) launch,
                           decltype(KernelVariant::unsupported_reason) unsupported,
                           decltype(KernelVariant::workspace_bytes) workspace, bool is_baseline) {
  KernelVariant v;
  v.op = op;
  v.id = std::move(id);
  v.description = std::move(description);
  v.is_baseline = is_baseline;
  v.unsupported_reason = unsupported;
  v.workspace_bytes = workspace;
  v.launch = launch;
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

std::optional<std::string> unsupported_reason(const KernelVariant& variant,
                                              const ProblemShape& problem,
                                              const DeviceCaps& device) {
  if (variant.op != problem.op) return "kernel is for op " + std::string(op_name(variant.op));
  if (!variant.unsupported_reason) return std::nullopt;
  return variant.unsupported_reason(problem, device);
}

size_t workspace_bytes(const KernelVariant& variant, const ProblemShape& problem,
                       const DeviceCaps& device) {
  return variant.workspace_bytes ? variant.workspace_bytes(problem, device) : 0;
}

}  // namespace normbench
