#include "app/check/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reference/parallel_chunks.hpp"

namespace normbench {

namespace {
// What one chunk of pieces found; chunks are merged in index order.
struct Tally {
  AccuracyTally accuracy{DType::float32, {}};
  int64_t checked = 0;
  int64_t violations = 0;
  int64_t nonfinite = 0;
  double max_abs = 0.0;
  double max_rel = 0.0;
  double err_sq = 0.0;
  double ref_sq = 0.0;
  std::vector<Mismatch> mismatches;

  // Adds `other`, which covers later elements (or a later output).
  void merge(const Tally& other, size_t max_mismatches) {
    accuracy.merge(other.accuracy);
    checked += other.checked;
    violations += other.violations;
    nonfinite += other.nonfinite;
    max_abs = std::max(max_abs, other.max_abs);
    max_rel = std::max(max_rel, other.max_rel);
    err_sq += other.err_sq;
    ref_sq += other.ref_sq;
    for (const Mismatch& m : other.mismatches)
      if (mismatches.size() < max_mismatches) mismatches.push_back(m);
  }
};

Tally check_output(const NormalizationReference& reference, Output output, const float* y,
                   const Tolerance& tolerance, int threads, size_t max_mismatches) {
  const int64_t pieces_per_chunk = reference.pieces_per_chunk();
  const int64_t chunks = ceil_div(reference.num_pieces(), pieces_per_chunk);
  const AccuracyTally none(reference.problem().dtype, tolerance);
  std::vector<Tally> tallies(static_cast<size_t>(chunks));
  for (Tally& t : tallies) t.accuracy = none;
  parallel_for_chunks(
      reference.num_pieces(), pieces_per_chunk,
      [&](int64_t chunk, int64_t first, int64_t last) {
        Tally& t = tallies[static_cast<size_t>(chunk)];
        std::vector<double> expected;
        for (int64_t p = first; p < last; ++p) {
          const int64_t begin = reference.piece_begin(p);
          const int64_t n = reference.piece_end(p) - begin;
          expected.resize(static_cast<size_t>(n));
          reference.expected(output, begin, n, expected.data());
          for (int64_t j = 0; j < n; ++j) {
            const double ref = expected[static_cast<size_t>(j)];
            const float v = y[begin + j];
            const double err = std::fabs(static_cast<double>(v) - ref);
            t.accuracy.add(v, ref);
            if (std::isfinite(err)) {
              t.max_abs = std::max(t.max_abs, err);
              if (ref != 0.0) t.max_rel = std::max(t.max_rel, err / std::fabs(ref));
              t.err_sq += err * err;
              t.ref_sq += ref * ref;
            }
            if (!within_tolerance(v, ref, tolerance)) {
              ++t.violations;
              if (!std::isfinite(static_cast<double>(v)) && std::isfinite(ref)) ++t.nonfinite;
              if (t.mismatches.size() < max_mismatches)
                t.mismatches.push_back({begin + j, {}, v, ref, output_name(output)});
            }
          }
          t.checked += n;
        }
      },
      threads);
  Tally all;
  all.accuracy = none;
  for (const Tally& t : tallies) all.merge(t, max_mismatches);
  return all;
}

VerificationResult result_of(const Tally& t, const NormalizationReference& reference,
                             std::vector<TensorCheck> tensors) {
  VerificationResult r;
  r.checked = t.checked;
  r.violations = t.violations;
  r.nonfinite = t.nonfinite;
  r.max_abs_error = t.max_abs;
  r.max_rel_error = t.max_rel;
  if (t.ref_sq > 0.0) r.rel_l2_error = std::sqrt(t.err_sq) / std::sqrt(t.ref_sq);
  r.first_mismatches = t.mismatches;
  for (Mismatch& m : r.first_mismatches)
    m.coords = unravel_index(m.index, reference.problem().shape);
  r.tensors = std::move(tensors);
  const auto expected_checks =
      static_cast<int64_t>(r.tensors.size()) * reference.problem().num_elements;
  r.passed = r.violations == 0 && r.checked == expected_checks;
  return r;
}
}  // namespace

bool within_tolerance(float y, double ref, const Tolerance& tolerance) {
  const double v = static_cast<double>(y);
  if (!std::isfinite(v) || !std::isfinite(ref))
    return (std::isnan(v) && std::isnan(ref)) || v == ref;  // equal infinities pass
  return std::fabs(v - ref) <= tolerance.atol + tolerance.rtol * std::fabs(ref);
}

std::vector<int64_t> unravel_index(int64_t index, const std::vector<int64_t>& shape) {
  std::vector<int64_t> coords(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    coords[d] = index % shape[d];
    index /= shape[d];
  }
  return coords;
}

VerificationResult verify_output(const NormalizationReference& reference, Output output,
                                 const float* values, const Tolerance& tolerance, int threads,
                                 size_t max_mismatches) {
  const Tally t = check_output(reference, output, values, tolerance, threads, max_mismatches);
  return result_of(
      t, reference,
      {{output_name(output), t.checked, t.violations, t.nonfinite, t.accuracy.result()}});
}

VerificationResult verify_outputs(const NormalizationReference& reference,
                                  const OutputValues& outputs, const Tolerance& tolerance,
                                  int threads, size_t max_mismatches) {
  Tally all;
  std::vector<TensorCheck> tensors;
  const std::vector<Output> all_outputs = problem_outputs(reference.problem());
  for (Output output : all_outputs) {
    const float* values = output == Output::sum ? outputs.sum : outputs.y;
    const Tally t = check_output(reference, output, values, tolerance, threads, max_mismatches);
    tensors.push_back(
        {output_name(output), t.checked, t.violations, t.nonfinite, t.accuracy.result()});
    all.merge(t, max_mismatches * all_outputs.size());  // up to max_mismatches each
  }
  return result_of(all, reference, std::move(tensors));
}

std::string violation_text(const VerificationResult& r, const Tolerance& tol) {
  auto text = [&](const std::string& tensor, int64_t violations, int64_t checked,
                  int64_t nonfinite) {
    return fmt::format("{} of {} elements outside |{} - ref| <= {} + {} * |ref|{}", violations,
                       checked, tensor, tol.atol, tol.rtol,
                       nonfinite > 0 ? fmt::format(" ({} NaN/Inf)", nonfinite) : "");
  };
  if (r.tensors.size() <= 1) return text("y", r.violations, r.checked, r.nonfinite);
  std::string out;
  for (const TensorCheck& t : r.tensors)
    if (t.violations > 0)
      out += (out.empty() ? "" : "; ") + t.tensor + ": " +
             text(t.tensor, t.violations, t.checked, t.nonfinite);
  return out;
}

}  // namespace normbench
