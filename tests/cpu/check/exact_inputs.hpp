// Inputs on which central differences of the float64 reference are exact: the backward
// reference tests perturb one input by h = 2^-11 and compare with the gradients.
#pragma once

#include <cstdint>
#include <vector>

namespace normbench::testing {

// Values k/16 in [-2, 2), a different sequence for each salt: sums of two of them, and each of
// them +- 2^-11, stay exact in float, so a difference perturbs exactly one input by exactly h.
inline std::vector<float> sixteenths(int64_t n, int salt) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = ((i * 37 + salt * 11) % 64 - 32) / 16.0f;
  return v;
}

}  // namespace normbench::testing
