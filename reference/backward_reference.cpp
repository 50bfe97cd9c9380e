#include "reference/backward_reference.hpp"

#include <Eigen/Core>
#include <algorithm>

#include "reference/parallel_chunks.hpp"

namespace normbench {

namespace {
// Elements a piece of a segment or plane holds: the sums below add a piece at a time.
constexpr int64_t kPiece = int64_t{1} << 16;
// Columns one work item of the row sums covers: every row's slice of them is read in turn.
constexpr int64_t kColumns = 1024;

using ConstFloats = Eigen::Map<const Eigen::ArrayXf>;

Eigen::ArrayXd doubles(const float* data, int64_t begin, int64_t n) {
  return ConstFloats(data + begin, static_cast<Eigen::Index>(n)).cast<double>();
}
}  // namespace

BackwardReference::BackwardReference(const ProblemShape& problem, const float* x, const float* dy,
                                     const float* ds_out, const float* weight, const double* mean,
                                     const double* rstd, int threads)
    : problem_(problem),
      x_(x),
      dy_(dy),
      ds_out_(ds_out),
      weight_(weight),
      mean_(mean),
      rstd_(rstd) {
  compute_segment_means(threads);
  if (!problem.affine) return;  // no dweight, and dbias only comes with a weight
  if (problem.per_channel_params())
    compute_channel_sums(threads);
  else
    compute_row_sums(threads);
}

void BackwardReference::weights(int64_t begin, int64_t n, Eigen::ArrayXd& out) const {
  out.resize(static_cast<Eigen::Index>(n));
  if (!weight_) {
    out.setOnes();
  } else if (!problem_.per_channel_params()) {
    out = doubles(weight_, problem_.param_index(begin), n);  // a piece never wraps around a row
  } else {
    // Per channel: the runs of elements that share one.
    for (int64_t i = 0; i < n;) {
      const int64_t run = std::min(n - i, problem_.spatial - (begin + i) % problem_.spatial);
      out.segment(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(run))
          .setConstant(static_cast<double>(weight_[problem_.param_index(begin + i)]));
      i += run;
    }
  }
}

void BackwardReference::compute_segment_means(int threads) {
  const int64_t segments = problem_.num_segments;
  const int64_t size = problem_.segment_size;
  g_mean_.assign(static_cast<size_t>(segments), 0.0);
  g_xhat_mean_.assign(static_cast<size_t>(segments), 0.0);
  parallel_for_chunks(
      segments, std::max<int64_t>(1, kPiece * 16 / size),
      [&](int64_t, int64_t first, int64_t last) {
        Eigen::ArrayXd w;
        for (int64_t s = first; s < last; ++s) {
          double g_sum = 0.0, g_xhat_sum = 0.0;
          for (int64_t begin = s * size; begin < (s + 1) * size; begin += kPiece) {
            const int64_t n = std::min(kPiece, (s + 1) * size - begin);
            weights(begin, n, w);
            const Eigen::ArrayXd g = doubles(dy_, begin, n) * w;
            const Eigen::ArrayXd xhat = (doubles(x_, begin, n) - mean_[s]) * rstd_[s];
            g_sum += g.sum();
            g_xhat_sum += (g * xhat).sum();
          }
          const auto count = static_cast<double>(size);
          // RMSNorm subtracts no mean, so its dx has no mean_seg(g) term.
          g_mean_[static_cast<size_t>(s)] = problem_.centered() ? g_sum / count : 0.0;
          g_xhat_mean_[static_cast<size_t>(s)] = g_xhat_sum / count;
        }
      },
      threads);
}

void BackwardReference::compute_row_sums(int threads) {
  const int64_t columns = problem_.param_size;
  const int64_t rows = problem_.num_elements / columns;
  for (auto* v : {&dweight_, &dweight_magnitude_, &dbias_, &dbias_magnitude_})
    v->assign(static_cast<size_t>(columns), 0.0);
  // Each work item adds every row's slice of its columns, rows in order: the same sums for any
  // thread count.
  parallel_for_chunks(
      columns, kColumns,
      [&](int64_t, int64_t first, int64_t last) {
        const auto width = static_cast<Eigen::Index>(last - first);
        Eigen::ArrayXd w_sum = Eigen::ArrayXd::Zero(width), w_mag = w_sum, b_sum = w_sum,
                       b_mag = w_sum;
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t begin = r * columns + first;
          const Eigen::ArrayXd dy = doubles(dy_, begin, width);
          const Eigen::ArrayXd terms = dy * ((doubles(x_, begin, width) - mean_[r]) * rstd_[r]);
          w_sum += terms;
          w_mag += terms.abs();
          b_sum += dy;
          b_mag += dy.abs();
        }
        auto store = [&](std::vector<double>& to, const Eigen::ArrayXd& from) {
          Eigen::Map<Eigen::ArrayXd>(to.data() + first, width) = from;
        };
        store(dweight_, w_sum);
        store(dweight_magnitude_, w_mag);
        store(dbias_, b_sum);
        store(dbias_magnitude_, b_mag);
      },
      threads);
}

void BackwardReference::compute_channel_sums(int threads) {
  const int64_t channels = problem_.channels;
  const int64_t spatial = problem_.spatial;
  const int64_t samples = problem_.shape.at(0);
  const int64_t per_group = channels / problem_.groups;
  for (auto* v : {&dweight_, &dweight_magnitude_, &dbias_, &dbias_magnitude_})
    v->assign(static_cast<size_t>(channels), 0.0);
  // One channel a work item: its planes (one per sample) in order, each a piece at a time.
  parallel_for_chunks(
      channels, 1,
      [&](int64_t, int64_t c, int64_t) {
        double w_sum = 0.0, w_mag = 0.0, b_sum = 0.0, b_mag = 0.0;
        for (int64_t sample = 0; sample < samples; ++sample) {
          const int64_t segment = sample * problem_.groups + c / per_group;
          const int64_t plane = (sample * channels + c) * spatial;
          for (int64_t begin = plane; begin < plane + spatial; begin += kPiece) {
            const int64_t n = std::min(kPiece, plane + spatial - begin);
            const Eigen::ArrayXd dy = doubles(dy_, begin, n);
            const Eigen::ArrayXd terms =
                dy * ((doubles(x_, begin, n) - mean_[segment]) * rstd_[segment]);
            w_sum += terms.sum();
            w_mag += terms.abs().sum();
            b_sum += dy.sum();
            b_mag += dy.abs().sum();
          }
        }
        const auto i = static_cast<size_t>(c);
        dweight_[i] = w_sum;
        dweight_magnitude_[i] = w_mag;
        dbias_[i] = b_sum;
        dbias_magnitude_[i] = b_mag;
      },
      threads);
}

void BackwardReference::dx(int64_t begin, int64_t n, double* out) const {
  const int64_t s = begin / problem_.segment_size;
  Eigen::ArrayXd w;
  weights(begin, n, w);
  const Eigen::ArrayXd g = doubles(dy_, begin, n) * w;
  const Eigen::ArrayXd xhat = (doubles(x_, begin, n) - mean_[s]) * rstd_[s];
  Eigen::Map<Eigen::ArrayXd> dx(out, static_cast<Eigen::Index>(n));
  dx = rstd_[s] * (g - g_mean(s) - xhat * g_xhat_mean(s));
  if (ds_out_) dx += doubles(ds_out_, begin, n);
}

namespace {
void copy_out(const std::vector<double>& from, int64_t begin, int64_t n, double* out) {
  std::copy_n(from.begin() + begin, n, out);
}
}  // namespace

void BackwardReference::grad_weight(int64_t begin, int64_t n, double* out) const {
  copy_out(dweight_, begin, n, out);
}
void BackwardReference::grad_bias(int64_t begin, int64_t n, double* out) const {
  copy_out(dbias_, begin, n, out);
}
void BackwardReference::grad_weight_magnitudes(int64_t begin, int64_t n, double* out) const {
  copy_out(dweight_magnitude_, begin, n, out);
}
void BackwardReference::grad_bias_magnitudes(int64_t begin, int64_t n, double* out) const {
  copy_out(dbias_magnitude_, begin, n, out);
}

}  // namespace normbench
