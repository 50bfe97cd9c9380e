// Element-wise verification of a kernel's output against the reference:
// |y - ref| <= atol + rtol * |ref|, with NaN or Inf in y passing only where ref has the same.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "app/config/config.hpp"
#include "reference/normalization_reference.hpp"

namespace normbench {

struct Mismatch {
  int64_t index = 0;
  std::vector<int64_t> coords;
  float value = 0.0f;
  double expected = 0.0;
};

struct VerificationResult {
  bool passed = false;
  int64_t checked = 0;
  int64_t violations = 0;
  int64_t nonfinite = 0;       // violations where y was NaN or Inf and the reference was not
  double max_abs_error = 0.0;  // over elements where both are finite
  double max_rel_error = 0.0;  // |y - ref| / |ref| over elements with ref != 0
  std::optional<double> rel_l2_error;      // ||y - ref|| / ||ref||; none when ||ref|| == 0
  std::vector<Mismatch> first_mismatches;  // lowest indices first
  bool inputs_unchanged = true;            // set by the harness after comparing input hashes
};

bool within_tolerance(float y, double ref, const Tolerance& tolerance);

std::vector<int64_t> unravel_index(int64_t index, const std::vector<int64_t>& shape);

VerificationResult verify_output(const NormalizationReference& reference, const float* y,
                                 const Tolerance& tolerance, int threads,
                                 size_t max_mismatches = 8);

}  // namespace normbench
