#include "kernels/dispatch.hpp"

namespace normbench::kernels {

KernelVariant make_dispatch_variant(Op op, std::string id, std::vector<DispatchRule> rules) {
  KernelVariant v;
  v.op = op;
  v.id = std::move(id);
  v.description = "dispatch:";
  // Takes every format: each rule's variant is planned through plan_kernel, which declines the
  // formats that variant does not accept.
  v.accepts = Accepts::everything();
  for (size_t i = 0; i < rules.size(); ++i) {
    const std::string& target = rules[i].variant_id;
    v.description += (i ? ", " : " ") + target.substr(target.find('.') + 1) +
                     (rules[i].when.empty() ? "" : " (" + rules[i].when + ")");
  }
  v.plan = [rules = std::move(rules)](const ProblemShape& p, const DeviceCaps& d) {
    for (const DispatchRule& rule : rules) {
      if (rule.applies && !rule.applies(p)) continue;
      const KernelVariant* target = find_kernel(rule.variant_id);
      if (!target) continue;
      KernelPlan plan = plan_kernel(*target, p, d);
      if (plan.unsupported) continue;
      plan.dispatches_to = target->id;
      return plan;
    }
    return KernelPlan::declined("no variant of the dispatch rules supports this problem");
  };
  return v;
}

}  // namespace normbench::kernels
