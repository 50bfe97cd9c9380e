// The CPU reference for every op, in double precision: two-pass mean and biased variance per
// segment, rstd = 1 / sqrt(var + eps) as PyTorch computes it, then the affine transform and,
// for layer_norm_gelu_scale, exact GELU 0.5 v (1 + erf(v / sqrt 2)) times scale.
//
// It keeps only per-segment statistics (16 bytes a segment) and computes expected outputs on
// demand, piece by piece: problem B's input is 7.5 GB, and a double copy of it would be 15 GB.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/problem_shape.hpp"

namespace normbench {

class NormalizationReference {
 public:
  // Elements per piece: segments longer than this are processed in pieces of this size.
  static constexpr int64_t kPieceElements = 1 << 16;

  // Computes the statistics of every segment of x on `threads` threads. The pointers must
  // outlive this object; weight and bias are null when !problem.affine.
  NormalizationReference(const ProblemShape& problem, const float* x, const float* weight,
                         const float* bias, int threads);

  const ProblemShape& problem() const { return problem_; }
  double mean(int64_t segment) const { return mean_[static_cast<size_t>(segment)]; }
  double rstd(int64_t segment) const { return rstd_[static_cast<size_t>(segment)]; }

  // Expected outputs of elements [begin, begin + n), which must lie inside one segment.
  void expected(int64_t begin, int64_t n, double* out) const;

  // The work items the reference and the verifier walk: piece p covers elements
  // [piece_begin(p), piece_end(p)) of one segment. Their number and bounds depend only on the
  // problem, never on the thread count.
  int64_t num_pieces() const { return problem_.num_segments * pieces_per_segment_; }
  int64_t piece_begin(int64_t piece) const;
  int64_t piece_end(int64_t piece) const;
  // How many pieces a parallel chunk should hold so that each chunk has real work.
  int64_t pieces_per_chunk() const;

 private:
  ProblemShape problem_;
  const float* x_;
  const float* weight_;
  const float* bias_;
  int64_t pieces_per_segment_;
  std::vector<double> mean_;
  std::vector<double> rstd_;
};

// Exact GELU of PyTorch's torch.nn.functional.gelu (approximate='none').
double gelu_exact(double v);

}  // namespace normbench
