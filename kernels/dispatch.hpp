// The `<op>.default` variants: pick the best registered variant for a shape, so that a user
// who asks for the op gets the fast path where there is one and a correct kernel always.
//
// The rule, by segment size (elements normalized together), first supported wins:
//   <= 1024          : the registers variant (one read of x, warp shuffles), if the op has one
//   >= 65536, affine : the two-phase variant, if the op has one (weight and bias read once,
//                      x twice: 3x bytes, where the split variant re-reads weight and bias for
//                      every row: 4x; 0.30 vs 0.44 ms on problem A)
//   >= 65536         : the lookahead variant, if the op has one (x read once, the exchange of
//                      statistics hidden behind the next segments' reads: 5.5 vs 7.1 ms on B)
//   >= 65536         : the split variant (segments spread over SMs, x read once: 2x bytes)
//   always, as last  : the general block-per-segment variant (supports every shape)
// Between 1024 and 65536 the general kernel is used: its re-reads of a segment hit L1/L2,
// while the split kernel would process one short segment per SM at a time.
#pragma once

#include <string>
#include <vector>

#include "kernels/registry.hpp"

namespace normbench::kernels {

struct DispatchTable {
  std::string registers_id;  // empty if the op has no such variant
  std::string two_phase_id;  // empty if the op has no such variant
  std::string lookahead_id;  // empty if the op has no such variant
  std::string split_id;
  std::string general_id;
};

// The variant the rule above picks; null only if the general variant is missing.
const KernelVariant* dispatch(const DispatchTable& table, const ProblemShape& p,
                              const DeviceCaps& device);

size_t dispatch_workspace(const DispatchTable& table, const ProblemShape& p,
                          const DeviceCaps& device);
cudaError_t dispatch_launch(const DispatchTable& table, const ProblemShape& p,
                            const DeviceCaps& device, const KernelArgs& args);

}  // namespace normbench::kernels
