// The CPU reference for every op, in double precision on the exact input values (low-precision
// inputs are floats holding representable values): two-pass mean and biased variance per
// segment, rstd = 1 / sqrt(var + eps) as PyTorch computes it, then the affine transform and,
// for layer_norm_gelu_scale, exact GELU 0.5 v (1 + erf(v / sqrt 2)) times scale, for
// group_norm_silu SiLU v / (1 + e^-v) of GroupNorm's value (both in double, and an output
// dtype's rounding is left to the comparison: an exact kernel rounds once, there). RMSNorm
// skips the mean: rstd = 1 / sqrt(mean(x^2) + eps). add_rms_norm has two outputs: s, whose
// reference is the exact x + residual, and y = rms_norm(s) of s as the kernel's dtype holds it:
// the float32 sum rounded once to the dtype, as PyTorch computes `x + residual`.
// channel_rms_norm is RMSNorm over dim 1: rstd per (sample, spatial position) over its C
// channels, which lie `spatial` apart. The backward ops' gradients (dx, dweight, dbias) are
// reference/backward_reference.hpp's, from the same exact statistics of x (for
// add_rms_norm_backward x is the sum s, normalized as rms_norm normalizes it).
//
// It keeps only per-segment statistics (16 bytes a segment) and computes expected outputs on
// demand, piece by piece: problem B's input is 7.5 GB, and a double copy of it would be 15 GB.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/problem_shape.hpp"
#include "kernels/tensor_roles.hpp"

namespace normbench {

class BackwardReference;

// The inputs in the logical order; null where the problem has none. (The statistics a backward
// op is given are not here: the reference uses the exact ones.)
struct ReferenceInputs {
  const float* x = nullptr;
  const float* residual = nullptr;
  const float* weight = nullptr;
  const float* bias = nullptr;
  const float* dy = nullptr;
  const float* ds_out = nullptr;  // add_rms_norm_backward
};

class NormalizationReference {
 public:
  // Elements per piece: segments longer than this are processed in pieces of this size.
  static constexpr int64_t kPieceElements = 1 << 16;

  // Computes the statistics of every segment on `threads` threads. The pointers must outlive
  // this object.
  NormalizationReference(const ProblemShape& problem, const ReferenceInputs& inputs, int threads);
  NormalizationReference(const ProblemShape& problem, const float* x, const float* weight,
                         const float* bias, int threads)
      : NormalizationReference(problem, ReferenceInputs{x, nullptr, weight, bias}, threads) {}
  ~NormalizationReference();

  const ProblemShape& problem() const { return problem_; }
  double mean(int64_t segment) const { return mean_[static_cast<size_t>(segment)]; }
  double rstd(int64_t segment) const { return rstd_[static_cast<size_t>(segment)]; }

  // Expected values of `output` at elements [begin, begin + n), which must lie inside one
  // piece of that output (for the data outputs a segment, or for channel_rms_norm one
  // (sample, channel) plane of `spatial` elements, which crosses many segments).
  void expected(Output output, int64_t begin, int64_t n, double* out) const;
  void expected(int64_t begin, int64_t n, double* out) const {
    expected(problem_outputs(problem_).front(), begin, n, out);
  }
  // For the parameter outputs (dweight, dbias), which are sums: the sum of the magnitudes of
  // each element's terms (sum over rows of |dy * xhat|, of |dy|), which their tolerance scales
  // with (app/check/sum_tolerance.hpp). Zeros for the other outputs.
  void term_magnitudes(Output output, int64_t begin, int64_t n, double* out) const;

  // The work items the reference and the verifier walk: piece p covers elements
  // [piece_begin(p), piece_end(p)) of one run of elements contiguous in the logical order: a
  // segment, or for channel_rms_norm a (sample, channel) plane. Their number and bounds depend
  // only on the problem, never on the thread count.
  int64_t num_pieces() const { return problem_.num_elements / run_ * pieces_per_run_; }
  int64_t piece_begin(int64_t piece) const;
  int64_t piece_end(int64_t piece) const;
  // The most elements one piece holds.
  int64_t max_piece_elements() const { return std::min(kPieceElements, run_); }
  // How many pieces a parallel chunk should hold so that each chunk has real work.
  int64_t pieces_per_chunk() const;
  // The pieces of any output: the above for data outputs; for parameter outputs, runs of up to
  // kPieceElements of its param_size elements.
  int64_t num_pieces(Output output) const;
  int64_t piece_begin(Output output, int64_t piece) const;
  int64_t piece_end(Output output, int64_t piece) const;
  int64_t pieces_per_chunk(Output output) const;
  int64_t max_piece_elements(Output output) const;

 private:
  ProblemShape problem_;
  ReferenceInputs inputs_;
  // What is normalized: x, or for add_rms_norm the rounded sum, owned here.
  std::vector<float> rounded_sum_;
  const float* normalized_input_;
  int64_t run_;  // elements of the contiguous run that pieces cut up
  int64_t pieces_per_run_;
  std::vector<double> mean_;
  std::vector<double> rstd_;
  std::unique_ptr<BackwardReference> backward_;  // the backward ops' gradients

  // channel_rms_norm's statistics: the sum of squares over the channels of each position.
  void compute_channel_statistics(const float* input, int threads);
};

// Exact GELU of PyTorch's torch.nn.functional.gelu (approximate='none').
double gelu_exact(double v);
// SiLU of torch.nn.functional.silu: v * sigmoid(v), in double.
double silu_exact(double v);

}  // namespace normbench
