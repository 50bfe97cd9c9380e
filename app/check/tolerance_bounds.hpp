// Verification's rule as an interval per element, for the device: an output element passes
// where lower <= y <= upper, or, where the reference is NaN (lower and upper NaN), where y is
// NaN too. The bounds are float32, rounded outward and then one float further, so that an
// element the host's float64 check passes (app/check/verify.hpp) always passes here; one it
// fails passes here only within two floats of the rule's edge. The worker checks every timed
// sample of a kernel that is not bitwise deterministic against them (docs/how-it-works.md).
#pragma once

#include <cstdint>

#include "app/config/config.hpp"
#include "reference/normalization_reference.hpp"

namespace normbench {

// The interval of one element whose reference is `ref`: NaN bounds for a NaN reference, both
// bounds the infinity itself for an infinite one.
void element_bounds(double ref, const Tolerance& tolerance, double allowance, float& lower,
                    float& upper);

// Every element of `output` in the logical order, into `lower` and `upper` (its element count
// each).
void tolerance_bounds(const NormalizationReference& reference, Output output,
                      const OutputTolerances& tolerances, float* lower, float* upper, int threads);

}  // namespace normbench
