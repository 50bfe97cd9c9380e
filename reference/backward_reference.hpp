// The float64 gradients of the backward ops, from the exact statistics of x (the forward
// reference's mean and rstd, not the float32 ones a kernel is given). With xhat = (x - mean) *
// rstd (RMSNorm: x * rstd), g = dy * weight (1 without a weight) and n the segment size:
//   LayerNorm, GroupNorm:  dx = rstd * (g - mean_seg(g) - xhat * mean_seg(g * xhat))
//   RMSNorm:               dx = rstd * (g - xhat * mean_seg(g * xhat))
//   add_rms_norm_backward: RMSNorm's dx of x (the forward's sum s) plus ds_out, the gradient that
//                          reached s itself: s = x + residual feeds y and is an output too.
//   dweight[j] = sum of dy * xhat, dbias[j] = sum of dy, over every element that uses
//   parameter j: a column of the rows, or a channel's elements over N and the spatial dims.
// Beside each sum it keeps the sum of its terms' magnitudes, which the sums' tolerance scales
// with (app/check/sum_tolerance.hpp).
//
// It streams: the two means per segment, then the parameter sums, each computed in fixed
// pieces whose order never depends on the thread count, so the results are the same for any.
// Memory: two doubles a segment and four a parameter.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "kernels/problem_shape.hpp"

namespace normbench {

class BackwardReference {
 public:
  // `mean` and `rstd` hold the exact statistics, one per segment (mean 0 for RMSNorm); every
  // pointer must outlive this object. weight is null without affine; ds_out is null but for
  // add_rms_norm_backward.
  BackwardReference(const ProblemShape& problem, const float* x, const float* dy,
                    const float* ds_out, const float* weight, const double* mean,
                    const double* rstd, int threads);

  // dx at logical elements [begin, begin + n), which lie in one segment.
  void dx(int64_t begin, int64_t n, double* out) const;
  // dweight and dbias at parameters [begin, begin + n), and the sums of their terms'
  // magnitudes (sum |dy * xhat|, sum |dy|).
  void grad_weight(int64_t begin, int64_t n, double* out) const;
  void grad_bias(int64_t begin, int64_t n, double* out) const;
  void grad_weight_magnitudes(int64_t begin, int64_t n, double* out) const;
  void grad_bias_magnitudes(int64_t begin, int64_t n, double* out) const;

  // mean_seg(g) and mean_seg(g * xhat) of a segment.
  double g_mean(int64_t segment) const { return g_mean_[static_cast<size_t>(segment)]; }
  double g_xhat_mean(int64_t segment) const { return g_xhat_mean_[static_cast<size_t>(segment)]; }

 private:
  ProblemShape problem_;
  const float* x_;
  const float* dy_;
  const float* ds_out_;
  const float* weight_;
  const double* mean_;
  const double* rstd_;
  std::vector<double> g_mean_, g_xhat_mean_;
  std::vector<double> dweight_, dweight_magnitude_, dbias_, dbias_magnitude_;

  // The weights of logical elements [begin, begin + n) of one segment (ones without a weight).
  void weights(int64_t begin, int64_t n, Eigen::ArrayXd& out) const;
  void compute_segment_means(int threads);
  void compute_row_sums(int threads);      // row ops: parameter j is column j of every row
  void compute_channel_sums(int threads);  // GroupNorm: parameter c is channel c of each sample
};

}  // namespace normbench
