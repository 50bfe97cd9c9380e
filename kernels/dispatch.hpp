// The `<op>.default` variants: one ordered rule list per op picks the best registered variant
// for a shape, so that a user who asks for the op gets the fast path where there is one and a
// correct kernel always. The first rule that applies and whose variant supports the problem
// wins; the last rule of every list applies always, to the general variant.
//
// Why the rules are what they are (measured on the H100, kernels/NOTES.md):
//   segments <= 1024 elements   : held in registers, one read of x, warp shuffles
//   >= 64K, affine LayerNorm    : two-phase, weight and bias read once and x twice (3x bytes),
//                                 where the split kernel re-reads weight and bias for every
//                                 row (4x): 0.30 vs 0.44 ms on problem A
//   >= 64K GroupNorm            : lookahead, x read once and the exchange of statistics hidden
//                                 behind the next segments' reads: 5.5 vs 7.1 ms on B
//   >= 64K                      : split over SMs, x read once (2x bytes)
//   between 1024 and 64K        : the general kernel: its re-reads of a segment hit L1/L2,
//                                 while the split kernel would take one short segment per SM
// and for the formats beyond float32 with weight and bias (bfloat16/float16 data, float32 or
// 16-bit parameters, a weight without a bias, the RMSNorm ops), which the float32 variants
// above decline:
//   rows of up to 32K 16-bit / 16K float32 elements that are whole 16-byte vectors:
//                                 row_in_registers, a block per row holding it in registers,
//                                 x read once (families/wide_rows.cuh; predictions in NOTES.md)
//   any other row               : the general kernel
// (Float32 rows with weight and bias between 1025 and 64K elements stay on the general kernel,
// whose times are committed, until row_in_registers is measured against it: NOTES.md.)
#pragma once

#include <string>
#include <vector>

#include "kernels/registry.hpp"

namespace normbench::kernels {

inline constexpr int64_t kRegistersMaxSegment = 1024;
inline constexpr int64_t kSplitMinSegment = 65536;

// The conditions the rule lists use.
inline bool short_segments(const ProblemShape& p) {
  return p.segment_size <= kRegistersMaxSegment;
}
inline bool long_segments(const ProblemShape& p) {
  return p.segment_size >= kSplitMinSegment;
}
inline bool long_affine_segments(const ProblemShape& p) {
  return p.affine && long_segments(p);
}
inline bool beyond_classic(const ProblemShape& p) {
  return !p.is_classic();
}

struct DispatchRule {
  std::string variant_id;                  // the variant this rule runs
  std::string when;                        // the condition in words, for the description
  bool (*applies)(const ProblemShape& p);  // null: always
};

// A dispatching variant: "dispatch: <variant> (<when>), ..." as its description; its plan is
// the plan of the first rule's variant that applies and supports the problem, with
// dispatches_to naming it.
KernelVariant make_dispatch_variant(Op op, std::string id, std::vector<DispatchRule> rules);

}  // namespace normbench::kernels
