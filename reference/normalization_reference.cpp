#include "reference/normalization_reference.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "reference/backward_reference.hpp"
#include "reference/low_precision.hpp"
#include "reference/parallel_chunks.hpp"

namespace normbench {

namespace {
using ConstFloats = Eigen::Map<const Eigen::ArrayXf>;

ConstFloats piece_of(const float* x, int64_t begin, int64_t end) {
  return ConstFloats(x + begin, static_cast<Eigen::Index>(end - begin));
}
}  // namespace

double gelu_exact(double v) {
  return 0.5 * v * (1.0 + std::erf(v * M_SQRT1_2));
}

double silu_exact(double v) {
  // v / (1 + e^-v): for v below about -709 e^-v is infinite and the quotient -0, where the
  // exact value (about v e^v) is far below every type's smallest subnormal anyway.
  return v / (1.0 + std::exp(-v));
}

NormalizationReference::NormalizationReference(const ProblemShape& problem,
                                               const ReferenceInputs& inputs, int threads)
    : problem_(problem),
      inputs_(inputs),
      normalized_input_(inputs.x),
      run_(problem.strided_segments() ? problem.spatial : problem.segment_size),
      pieces_per_run_(ceil_div(run_, kPieceElements)),
      mean_(static_cast<size_t>(problem.num_segments)),
      rstd_(static_cast<size_t>(problem.num_segments)) {
  if (problem.has_residual()) {
    // s as a tensor of the dtype holds it: the float32 sum, rounded once to the dtype.
    rounded_sum_.resize(static_cast<size_t>(problem.num_elements));
    parallel_for_chunks(
        problem.num_elements, kPieceElements * 16,
        [&](int64_t, int64_t first, int64_t last) {
          for (int64_t i = first; i < last; ++i)
            rounded_sum_[static_cast<size_t>(i)] =
                round_to_dtype(inputs.x[i] + inputs.residual[i], problem.dtype);
        },
        threads);
    normalized_input_ = rounded_sum_.data();
  }
  const float* input = normalized_input_;
  if (problem.strided_segments()) {
    compute_channel_statistics(input, threads);
    return;
  }
  // From here on a run is a segment: its pieces are pieces_per_run_ in a row.
  // Per-piece partial sums, combined per segment in piece order: the same result for any
  // number of threads.
  std::vector<double> partial(static_cast<size_t>(num_pieces()));
  const int64_t segments = problem.num_segments;
  const auto n = static_cast<double>(problem.segment_size);
  auto combine = [&](std::vector<double>& per_segment, auto finish) {
    parallel_for_chunks(
        segments, std::max<int64_t>(1, kPieceElements / problem.segment_size * 16),
        [&](int64_t, int64_t first, int64_t last) {
          for (int64_t s = first; s < last; ++s) {
            double sum = 0.0;
            for (int64_t p = 0; p < pieces_per_run_; ++p)
              sum += partial[static_cast<size_t>(s * pieces_per_run_ + p)];
            per_segment[static_cast<size_t>(s)] = finish(sum);
          }
        },
        threads);
  };

  // Pass 1: the mean (RMSNorm: none, its "variance" is the mean square).
  if (problem.centered()) {
    parallel_for_chunks(
        num_pieces(), pieces_per_chunk(),
        [&](int64_t, int64_t first, int64_t last) {
          for (int64_t p = first; p < last; ++p)
            partial[static_cast<size_t>(p)] =
                piece_of(input, piece_begin(p), piece_end(p)).cast<double>().sum();
        },
        threads);
    combine(mean_, [&](double sum) { return sum / n; });
  }

  // Pass 2: the biased variance around that mean, then rstd as PyTorch: 1 / sqrt(var + eps).
  parallel_for_chunks(
      num_pieces(), pieces_per_chunk(),
      [&](int64_t, int64_t first, int64_t last) {
        for (int64_t p = first; p < last; ++p) {
          const double m = mean_[static_cast<size_t>(p / pieces_per_run_)];
          partial[static_cast<size_t>(p)] =
              (piece_of(input, piece_begin(p), piece_end(p)).cast<double>() - m).square().sum();
        }
      },
      threads);
  combine(rstd_, [&](double sum) { return 1.0 / std::sqrt(sum / n + problem.eps); });
  if (problem.is_backward())
    backward_ =
        std::make_unique<BackwardReference>(problem, inputs.x, inputs.dy, inputs.ds_out,
                                            inputs.weight, mean_.data(), rstd_.data(), threads);
}

NormalizationReference::~NormalizationReference() = default;

void NormalizationReference::compute_channel_statistics(const float* input, int threads) {
  // Positions of one sample in blocks of up to kPieceElements; each block adds its channels'
  // squares in channel order, so every sum is the same for any thread count. The mean stays 0.
  const int64_t channels = problem_.channels;
  const int64_t spatial = problem_.spatial;
  const int64_t block = std::min(kPieceElements, spatial);
  const int64_t blocks_per_sample = ceil_div(spatial, block);
  const int64_t items = problem_.shape.at(0) * blocks_per_sample;
  const int64_t per_chunk = std::max<int64_t>(1, kPieceElements * 16 / (channels * block));
  parallel_for_chunks(
      items, per_chunk,
      [&](int64_t, int64_t first, int64_t last) {
        Eigen::ArrayXd squares;
        for (int64_t item = first; item < last; ++item) {
          const int64_t sample = item / blocks_per_sample;
          const int64_t s0 = (item % blocks_per_sample) * block;
          const int64_t n = std::min(block, spatial - s0);
          squares.setZero(static_cast<Eigen::Index>(n));
          for (int64_t c = 0; c < channels; ++c) {
            const int64_t begin = (sample * channels + c) * spatial + s0;
            squares += piece_of(input, begin, begin + n).cast<double>().square();
          }
          const int64_t segment = sample * spatial + s0;
          Eigen::Map<Eigen::ArrayXd>(rstd_.data() + segment, static_cast<Eigen::Index>(n)) =
              (squares / static_cast<double>(channels) + problem_.eps).sqrt().inverse();
        }
      },
      threads);
}

int64_t NormalizationReference::piece_begin(int64_t piece) const {
  const int64_t run = piece / pieces_per_run_;
  return run * run_ + (piece % pieces_per_run_) * kPieceElements;
}

int64_t NormalizationReference::piece_end(int64_t piece) const {
  const int64_t run_end = (piece / pieces_per_run_ + 1) * run_;
  return std::min(run_end, piece_begin(piece) + kPieceElements);
}

int64_t NormalizationReference::pieces_per_chunk() const {
  return std::max<int64_t>(1, kPieceElements / max_piece_elements());
}

// The parameter outputs are cut into runs of kPieceElements of their own.
int64_t NormalizationReference::num_pieces(Output output) const {
  if (tensor_kind(output) != TensorKind::params) return num_pieces();
  return ceil_div(problem_.param_size, kPieceElements);
}

int64_t NormalizationReference::piece_begin(Output output, int64_t piece) const {
  if (tensor_kind(output) != TensorKind::params) return piece_begin(piece);
  return piece * kPieceElements;
}

int64_t NormalizationReference::piece_end(Output output, int64_t piece) const {
  if (tensor_kind(output) != TensorKind::params) return piece_end(piece);
  return std::min(problem_.param_size, (piece + 1) * kPieceElements);
}

int64_t NormalizationReference::max_piece_elements(Output output) const {
  if (tensor_kind(output) != TensorKind::params) return max_piece_elements();
  return std::min(kPieceElements, problem_.param_size);
}

int64_t NormalizationReference::pieces_per_chunk(Output output) const {
  if (tensor_kind(output) != TensorKind::params) return pieces_per_chunk();
  return 1;  // at most 2^16 parameters a piece, copied from sums computed beforehand
}

void NormalizationReference::term_magnitudes(Output output, int64_t begin, int64_t n,
                                             double* out) const {
  if (output == Output::grad_weight) return backward_->grad_weight_magnitudes(begin, n, out);
  if (output == Output::grad_bias) return backward_->grad_bias_magnitudes(begin, n, out);
  std::fill_n(out, n, 0.0);
}

void NormalizationReference::expected(Output output, int64_t begin, int64_t n, double* out) const {
  if (output == Output::dx) return backward_->dx(begin, n, out);
  if (output == Output::grad_weight) return backward_->grad_weight(begin, n, out);
  if (output == Output::grad_bias) return backward_->grad_bias(begin, n, out);
  Eigen::Map<Eigen::ArrayXd> y(out, static_cast<Eigen::Index>(n));
  if (output == Output::sum) {
    y = piece_of(inputs_.x, begin, begin + n).cast<double>() +
        piece_of(inputs_.residual, begin, begin + n).cast<double>();
    return;
  }
  if (problem_.strided_segments()) {
    // One (sample, channel) plane: position s of it belongs to segment sample * spatial + s.
    const int64_t plane = begin / problem_.spatial;
    const int64_t segment = plane / problem_.channels * problem_.spatial + begin % problem_.spatial;
    y = piece_of(normalized_input_, begin, begin + n).cast<double>() *
        Eigen::Map<const Eigen::ArrayXd>(rstd_.data() + segment, static_cast<Eigen::Index>(n));
    if (problem_.affine) y *= static_cast<double>(inputs_.weight[plane % problem_.channels]);
    return;
  }
  const int64_t segment = begin / problem_.segment_size;
  const double m = mean_[static_cast<size_t>(segment)];
  const double r = rstd_[static_cast<size_t>(segment)];
  y = (piece_of(normalized_input_, begin, begin + n).cast<double>() - m) * r;
  const float* weight = inputs_.weight;
  const float* bias = problem_.has_bias ? inputs_.bias : nullptr;
  if (problem_.affine) {
    if (problem_.grouped()) {
      // Per channel: walk the runs of elements that share one.
      for (int64_t i = 0; i < n;) {
        const int64_t c = problem_.param_index(begin + i);
        const int64_t run = std::min(n - i, problem_.spatial - (begin + i) % problem_.spatial);
        y.segment(i, run) = y.segment(i, run) * static_cast<double>(weight[c]) +
                            (bias ? static_cast<double>(bias[c]) : 0.0);
        i += run;
      }
    } else {
      const int64_t p = problem_.param_index(begin);  // a piece never wraps around a row
      y = y * piece_of(weight, p, p + n).cast<double>();
      if (bias) y += piece_of(bias, p, p + n).cast<double>();
    }
  }
  if (problem_.op == Op::layer_norm_gelu_scale)
    y = y.unaryExpr([this](double v) { return gelu_exact(v) * problem_.scale; });
  if (problem_.op == Op::group_norm_silu) y = y.unaryExpr([](double v) { return silu_exact(v); });
}

}  // namespace normbench
