#include "app/check/tolerance_bounds.hpp"

#include <cmath>
#include <limits>

#include "app/check/verify.hpp"
#include "reference/parallel_chunks.hpp"

namespace normbench {

namespace {
// The float nearest `value` on the side of `toward`, then one float further: the double
// arithmetic of the host's rule may round either way at the boundary.
float outward(double value, float toward) {
  float f = static_cast<float>(value);
  if (toward < 0 ? static_cast<double>(f) > value : static_cast<double>(f) < value)
    f = std::nextafter(f, toward);
  return std::nextafter(f, toward);
}
}  // namespace

void element_bounds(double ref, const Tolerance& tolerance, double allowance, float& lower,
                    float& upper) {
  if (!std::isfinite(ref)) {  // NaN: y must be NaN; an infinity: y must be that infinity
    lower = upper = static_cast<float>(ref);
    return;
  }
  const double bound = tolerance.atol + tolerance.rtol * std::fabs(ref) + allowance;
  constexpr float kInfinity = std::numeric_limits<float>::infinity();
  lower = outward(ref - bound, -kInfinity);
  upper = outward(ref + bound, kInfinity);
}

void tolerance_bounds(const NormalizationReference& reference, Output output,
                      const OutputTolerances& tolerances, float* lower, float* upper, int threads) {
  const Tolerance& tolerance =
      tensor_kind(output) == TensorKind::params ? tolerances.params : tolerances.data;
  parallel_for_chunks(
      reference.num_pieces(output), reference.pieces_per_chunk(output),
      [&](int64_t, int64_t first, int64_t last) {
        visit_expected(
            reference, output, first, last,
            [&](int64_t begin, int64_t n, const double* expected, const double* allowances) {
              for (int64_t j = 0; j < n; ++j)
                element_bounds(expected[j], tolerance, allowances ? allowances[j] : 0.0,
                               lower[begin + j], upper[begin + j]);
            });
      },
      threads);
}

}  // namespace normbench
