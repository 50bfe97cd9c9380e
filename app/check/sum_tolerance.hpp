// The tolerance of outputs that are sums over the data: a backward op's dweight[j] and
// dbias[j] add M terms t_i (M = reduction_terms: the rows, or N * spatial for GroupNorm), and a
// kernel's float32 accumulation of them errs in proportion to S_j = sum |t_i|, not to the sum
// itself, which cancels. Element j passes when
//   |out_j - ref_j| <= atol + rtol |ref_j| + lambda * sqrt(M) * u32 * S_j
// with rtol and atol the output dtype's (the config's tolerance), u32 = 2^-24, and S_j the
// reference's (NormalizationReference::term_magnitudes). Why sqrt(M), and why lambda = 8: the
// derivation in docs/backward.md ("The tolerance of dweight and dbias").
#pragma once

#include <cstdint>

namespace normbench {

// The float32 unit roundoff, in which kernels accumulate whatever their data's type.
inline constexpr double kFloat32Roundoff = 0x1p-24;
// How many standard deviations of a random walk of rounding errors the allowance spans (and, up
// to 57 terms, at least the worst case of any summation order): docs/backward.md.
inline constexpr double kSumToleranceLambda = 8.0;

// lambda * sqrt(terms) * u32 * magnitude: what the element's sum may err beyond atol + rtol|ref|.
double sum_allowance(int64_t terms, double magnitude);

}  // namespace normbench
