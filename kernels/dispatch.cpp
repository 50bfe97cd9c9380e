#include "kernels/dispatch.hpp"

namespace normbench::kernels {

namespace {
constexpr int64_t kRegistersMaxSegment = 1024;
constexpr int64_t kSplitMinSegment = 65536;
}  // namespace

const KernelVariant* dispatch(const DispatchTable& table, const ProblemShape& p,
                              const DeviceCaps& device) {
  std::vector<const std::string*> preference;
  if (!table.registers_id.empty() && p.segment_size <= kRegistersMaxSegment)
    preference.push_back(&table.registers_id);
  if (!table.two_phase_id.empty() && p.affine && p.segment_size >= kSplitMinSegment)
    preference.push_back(&table.two_phase_id);
  if (!table.lookahead_id.empty() && p.segment_size >= kSplitMinSegment)
    preference.push_back(&table.lookahead_id);
  if (p.segment_size >= kSplitMinSegment) preference.push_back(&table.split_id);
  preference.push_back(&table.general_id);
  for (const std::string* id : preference) {
    const KernelVariant* variant = find_kernel(*id);
    if (variant && !unsupported_reason(*variant, p, device)) return variant;
  }
  return nullptr;
}

size_t dispatch_workspace(const DispatchTable& table, const ProblemShape& p,
                          const DeviceCaps& device) {
  const KernelVariant* variant = dispatch(table, p, device);
  return variant ? workspace_bytes(*variant, p, device) : 0;
}

cudaError_t dispatch_launch(const DispatchTable& table, const ProblemShape& p,
                            const DeviceCaps& device, const KernelArgs& args) {
  const KernelVariant* variant = dispatch(table, p, device);
  return variant ? variant->launch(p, device, args) : cudaErrorNotSupported;
}

}  // namespace normbench::kernels
