// Element-wise verification of a kernel's outputs against the reference:
// |y - ref| <= atol + rtol * |ref|, with NaN or Inf in y passing only where ref has the same;
// the outputs that are sums over the data (dweight, dbias) get an allowance for their
// accumulation besides (app/check/sum_tolerance.hpp). Outputs are read as floats in the logical
// order (app/inputs/tensor_encoding.hpp decodes them).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/check/accuracy.hpp"
#include "app/config/config.hpp"
#include "reference/normalization_reference.hpp"

namespace normbench {

struct Mismatch {
  int64_t index = 0;
  std::vector<int64_t> coords;
  float value = 0.0f;
  double expected = 0.0;
  std::string tensor = "y";  // the output it is in (output_name): "y", "s", "dx", "dweight"...
};

// What one output's check found, for the failure message.
struct TensorCheck {
  std::string tensor;
  int64_t checked = 0;
  int64_t violations = 0;
  int64_t nonfinite = 0;
  OutputAccuracy accuracy;  // in units of the tolerance and, for 16-bit outputs, of ULPs
  Tolerance tolerance;      // its rtol and atol
  int64_t sum_terms = 0;    // a sum output's terms per element (its allowance); 0 for others
};

struct VerificationResult {
  bool passed = false;
  int64_t checked = 0;
  int64_t violations = 0;
  int64_t nonfinite = 0;       // violations where y was NaN or Inf and the reference was not
  double max_abs_error = 0.0;  // over elements where both are finite
  double max_rel_error = 0.0;  // |y - ref| / |ref| over elements with ref != 0
  std::optional<double> rel_l2_error;      // ||y - ref|| / ||ref||; none when ||ref|| == 0
  std::vector<Mismatch> first_mismatches;  // lowest indices first, per output in order
  bool inputs_unchanged = true;            // set by the harness after comparing input hashes
  std::vector<TensorCheck> tensors;        // one per output checked, in order
};

// Every output of a launch, as floats in the logical order; null for those the problem lacks.
struct OutputValues {
  std::array<const float*, kOutputCount> values{};
  const float*& operator[](Output output) { return values[static_cast<size_t>(output)]; }
  const float* operator[](Output output) const { return values[static_cast<size_t>(output)]; }
  // A forward op's y alone.
  static OutputValues of_y(const float* y) {
    OutputValues v;
    v[Output::y] = y;
    return v;
  }
};

// The pieces [first, last) of `output` (runs of elements contiguous in the logical order), each
// with its expected values and what each element may err beyond atol + rtol |ref| (a sum
// output's accumulation allowance; null for the others, whose allowance is 0).
using ExpectedVisitor = std::function<void(int64_t begin, int64_t count, const double* expected,
                                           const double* allowances)>;
void visit_expected(const NormalizationReference& reference, Output output, int64_t first,
                    int64_t last, const ExpectedVisitor& visit);

// `allowance`: what a sum output may err beyond atol + rtol |ref| (0 for the others).
bool within_tolerance(float y, double ref, const Tolerance& tolerance, double allowance = 0.0);

std::vector<int64_t> unravel_index(int64_t index, const std::vector<int64_t>& shape);

// One output against its reference (`tolerance`: that output's rtol and atol).
VerificationResult verify_output(const NormalizationReference& reference, Output output,
                                 const float* values, const Tolerance& tolerance, int threads,
                                 size_t max_mismatches = 8);
inline VerificationResult verify_output(const NormalizationReference& reference, const float* y,
                                        const Tolerance& tolerance, int threads,
                                        size_t max_mismatches = 8) {
  return verify_output(reference, Output::y, y, tolerance, threads, max_mismatches);
}

// Every output of the problem, merged: checked and violations add up, errors are the largest,
// up to max_mismatches mismatches of each output are kept, and it passes only if every output
// passed.
VerificationResult verify_outputs(const NormalizationReference& reference,
                                  const OutputValues& outputs, const OutputTolerances& tolerances,
                                  int threads, size_t max_mismatches = 8);

// "3 of 32 elements outside |y - ref| <= 1e-05 + 1e-05 * |ref|"; when the problem has more than
// one output, each output with violations named, in output order ("y: ...; s: 3 of 32 elements
// outside |s - ref| <= ..."), a sum output with its allowance ("... + 8 sqrt(M) u32 S, M =
// 4096").
std::string violation_text(const VerificationResult& result);

}  // namespace normbench
