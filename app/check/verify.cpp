#include "app/check/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/check/sum_tolerance.hpp"
#include "reference/parallel_chunks.hpp"

namespace normbench {

void visit_expected(const NormalizationReference& reference, Output output, int64_t first,
                    int64_t last, const ExpectedVisitor& visit) {
  // Sums over the data (dweight, dbias) may err by their accumulation's allowance besides.
  const bool is_sum = tensor_kind(output) == TensorKind::params;
  const int64_t terms = reduction_terms(reference.problem());
  std::vector<double> expected, allowances;
  for (int64_t p = first; p < last; ++p) {
    const int64_t begin = reference.piece_begin(output, p);
    const int64_t n = reference.piece_end(output, p) - begin;
    expected.resize(static_cast<size_t>(n));
    reference.expected(output, begin, n, expected.data());
    if (is_sum) {
      allowances.resize(static_cast<size_t>(n));
      reference.term_magnitudes(output, begin, n, allowances.data());
      for (double& a : allowances) a = sum_allowance(terms, a);
    }
    visit(begin, n, expected.data(), is_sum ? allowances.data() : nullptr);
  }
}

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
  const ProblemShape& problem = reference.problem();
  const int64_t pieces_per_chunk = reference.pieces_per_chunk(output);
  const int64_t chunks = ceil_div(reference.num_pieces(output), pieces_per_chunk);
  const AccuracyTally none(tensor_dtype(problem, tensor_kind(output)), tolerance);
  std::vector<Tally> tallies(static_cast<size_t>(chunks));
  for (Tally& t : tallies) t.accuracy = none;
  parallel_for_chunks(
      reference.num_pieces(output), pieces_per_chunk,
      [&](int64_t chunk, int64_t first, int64_t last) {
        Tally& t = tallies[static_cast<size_t>(chunk)];
        visit_expected(
            reference, output, first, last,
            [&](int64_t begin, int64_t n, const double* expected, const double* allowances) {
              for (int64_t j = 0; j < n; ++j) {
                const double ref = expected[j];
                const double allowance = allowances ? allowances[j] : 0.0;
                const float v = y[begin + j];
                const double err = std::fabs(static_cast<double>(v) - ref);
                t.accuracy.add(v, ref, allowance);
                if (std::isfinite(err)) {
                  t.max_abs = std::max(t.max_abs, err);
                  if (ref != 0.0) t.max_rel = std::max(t.max_rel, err / std::fabs(ref));
                  t.err_sq += err * err;
                  t.ref_sq += ref * ref;
                }
                if (!within_tolerance(v, ref, tolerance, allowance)) {
                  ++t.violations;
                  if (!std::isfinite(static_cast<double>(v)) && std::isfinite(ref)) ++t.nonfinite;
                  if (t.mismatches.size() < max_mismatches)
                    t.mismatches.push_back({begin + j, {}, v, ref, output_name(output)});
                }
              }
              t.checked += n;
            });
      },
      threads);
  Tally all;
  all.accuracy = none;
  for (const Tally& t : tallies) all.merge(t, max_mismatches);
  return all;
}

TensorCheck tensor_check(const NormalizationReference& reference, Output output, const Tally& t,
                         const Tolerance& tolerance) {
  const bool is_sum = tensor_kind(output) == TensorKind::params;
  return {output_name(output),
          t.checked,
          t.violations,
          t.nonfinite,
          t.accuracy.result(),
          tolerance,
          is_sum ? reduction_terms(reference.problem()) : 0};
}

VerificationResult result_of(const Tally& t, const NormalizationReference& reference,
                             std::vector<Output> outputs, std::vector<TensorCheck> tensors) {
  const ProblemShape& problem = reference.problem();
  VerificationResult r;
  r.checked = t.checked;
  r.violations = t.violations;
  r.nonfinite = t.nonfinite;
  r.max_abs_error = t.max_abs;
  r.max_rel_error = t.max_rel;
  if (t.ref_sq > 0.0) r.rel_l2_error = std::sqrt(t.err_sq) / std::sqrt(t.ref_sq);
  r.first_mismatches = t.mismatches;
  for (Mismatch& m : r.first_mismatches) {
    const Output* output = nullptr;
    for (const Output& o : outputs)
      if (m.tensor == output_name(o)) output = &o;
    m.coords = unravel_index(m.index, tensor_shape(problem, tensor_kind(*output)));
  }
  r.tensors = std::move(tensors);
  int64_t expected_checks = 0;
  for (Output output : outputs) expected_checks += tensor_elements(problem, tensor_kind(output));
  r.passed = r.violations == 0 && r.checked == expected_checks;
  return r;
}
}  // namespace

bool within_tolerance(float y, double ref, const Tolerance& tolerance, double allowance) {
  const double v = static_cast<double>(y);
  if (!std::isfinite(v) || !std::isfinite(ref))
    return (std::isnan(v) && std::isnan(ref)) || v == ref;  // equal infinities pass
  return std::fabs(v - ref) <= tolerance.atol + tolerance.rtol * std::fabs(ref) + allowance;
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
  return result_of(t, reference, {output}, {tensor_check(reference, output, t, tolerance)});
}

VerificationResult verify_outputs(const NormalizationReference& reference,
                                  const OutputValues& outputs, const OutputTolerances& tolerances,
                                  int threads, size_t max_mismatches) {
  Tally all;
  std::vector<TensorCheck> tensors;
  const std::vector<Output> all_outputs = problem_outputs(reference.problem());
  for (Output output : all_outputs) {
    const Tolerance& tolerance =
        tensor_kind(output) == TensorKind::params ? tolerances.params : tolerances.data;
    const Tally t =
        check_output(reference, output, outputs[output], tolerance, threads, max_mismatches);
    tensors.push_back(tensor_check(reference, output, t, tolerance));
    all.merge(t, max_mismatches * all_outputs.size());  // up to max_mismatches each
  }
  return result_of(all, reference, all_outputs, std::move(tensors));
}

std::string violation_text(const VerificationResult& r) {
  auto text = [&](const TensorCheck& t) {
    const Tolerance& tol = t.tolerance;
    const std::string allowance =
        t.sum_terms > 0
            ? fmt::format(" + {} sqrt(M) u32 S (M = {} terms, S = sum of their magnitudes)",
                          kSumToleranceLambda, t.sum_terms)
            : "";
    return fmt::format("{} of {} elements outside |{} - ref| <= {} + {} * |ref|{}{}", t.violations,
                       t.checked, t.tensor, tol.atol, tol.rtol, allowance,
                       t.nonfinite > 0 ? fmt::format(" ({} NaN/Inf)", t.nonfinite) : "");
  };
  if (r.tensors.size() == 1) return text(r.tensors.front());
  std::string out;
  for (const TensorCheck& t : r.tensors)
    if (t.violations > 0) out += (out.empty() ? "" : "; ") + t.tensor + ": " + text(t);
  return out;
}

}  // namespace normbench
