#include "app/check/verify.hpp"

#include <algorithm>
#include <cmath>

#include "reference/parallel_chunks.hpp"

namespace normbench {

namespace {
// What one chunk of pieces found; chunks are merged in index order.
struct Tally {
  int64_t checked = 0;
  int64_t violations = 0;
  int64_t nonfinite = 0;
  double max_abs = 0.0;
  double max_rel = 0.0;
  double err_sq = 0.0;
  double ref_sq = 0.0;
  std::vector<Mismatch> mismatches;
};
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

VerificationResult verify_output(const NormalizationReference& reference, const float* y,
                                 const Tolerance& tolerance, int threads, size_t max_mismatches) {
  const int64_t pieces_per_chunk = reference.pieces_per_chunk();
  const int64_t chunks = ceil_div(reference.num_pieces(), pieces_per_chunk);
  std::vector<Tally> tallies(static_cast<size_t>(chunks));
  parallel_for_chunks(
      reference.num_pieces(), pieces_per_chunk,
      [&](int64_t chunk, int64_t first, int64_t last) {
        Tally& t = tallies[static_cast<size_t>(chunk)];
        std::vector<double> expected;
        for (int64_t p = first; p < last; ++p) {
          const int64_t begin = reference.piece_begin(p);
          const int64_t n = reference.piece_end(p) - begin;
          expected.resize(static_cast<size_t>(n));
          reference.expected(begin, n, expected.data());
          for (int64_t j = 0; j < n; ++j) {
            const double ref = expected[static_cast<size_t>(j)];
            const float v = y[begin + j];
            const double err = std::fabs(static_cast<double>(v) - ref);
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
                t.mismatches.push_back({begin + j, {}, v, ref});
            }
          }
          t.checked += n;
        }
      },
      threads);

  VerificationResult r;
  double err_sq = 0.0, ref_sq = 0.0;
  for (const Tally& t : tallies) {
    r.checked += t.checked;
    r.violations += t.violations;
    r.nonfinite += t.nonfinite;
    r.max_abs_error = std::max(r.max_abs_error, t.max_abs);
    r.max_rel_error = std::max(r.max_rel_error, t.max_rel);
    err_sq += t.err_sq;
    ref_sq += t.ref_sq;
    for (const Mismatch& m : t.mismatches)
      if (r.first_mismatches.size() < max_mismatches) r.first_mismatches.push_back(m);
  }
  for (Mismatch& m : r.first_mismatches)
    m.coords = unravel_index(m.index, reference.problem().shape);
  if (ref_sq > 0.0) r.rel_l2_error = std::sqrt(err_sq) / std::sqrt(ref_sq);
  r.passed = r.violations == 0 && r.checked == reference.problem().num_elements;
  return r;
}

}  // namespace normbench
