#include "app/inputs/inputs.hpp"

#include <algorithm>
#include <cmath>

#include "app/inputs/tensor_encoding.hpp"
#include "app/util/hashing.hpp"
#include "reference/normalization_reference.hpp"
#include "reference/parallel_chunks.hpp"

namespace normbench {

namespace {
constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ull;
constexpr int64_t kChunk = 1 << 20;

// Output `counter` of the SplitMix64 sequence that starts at `key`.
inline uint64_t stream_bits(uint64_t key, uint64_t counter) {
  return mix64(key + (counter + 1) * kGoldenGamma);
}

// 24 random bits as a float in [0, 1), exactly as torch.rand's resolution.
inline float unit_float(uint64_t bits) {
  return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
}
}  // namespace

template <class Inputs>
auto& ProblemInputs::of(Inputs& in, Input input) {
  switch (input) {
    case Input::x:
      return in.x;
    case Input::residual:
      return in.residual;
    case Input::weight:
      return in.weight;
    case Input::bias:
      return in.bias;
    case Input::dy:
      return in.dy;
    case Input::ds_out:
      return in.ds_out;
    case Input::mean:
      return in.mean;
    case Input::rstd:
      break;
  }
  return in.rstd;
}

HostTensor& ProblemInputs::operator[](Input input) {
  return of(*this, input);
}

const HostTensor& ProblemInputs::operator[](Input input) const {
  return of(*this, input);
}

namespace {
// The statistics a backward op's forward saved: those of x, exact (the reference's), rounded
// once to float32.
void fill_saved_statistics(const ProblemShape& p, ProblemInputs& in, int threads) {
  ProblemShape forward = p;
  forward.op = statistics_op(p.op);  // its reference computes the statistics and nothing else
  const NormalizationReference statistics(forward, ReferenceInputs{in.x.begin()}, threads);
  for (int64_t s = 0; s < p.num_segments; ++s) {
    if (p.centered()) in.mean.begin()[s] = static_cast<float>(statistics.mean(s));
    in.rstd.begin()[s] = static_cast<float>(statistics.rstd(s));
  }
}
}  // namespace

uint64_t tensor_stream_key(uint64_t seed, const std::string& tensor_name) {
  return mix64(mix64(seed) ^ fnv1a64(tensor_name.data(), tensor_name.size()));
}

void generate(const Distribution& dist, uint64_t key, int64_t first, int64_t n, float* out) {
  const auto begin = static_cast<uint64_t>(first);
  switch (dist.kind) {
    case Distribution::Kind::uniform: {
      const bool unit = dist.a == 0.0 && dist.b == 1.0;
      const double span = dist.b - dist.a;
      // Rounding to float can land on `high`; step back below it to keep [low, high).
      const float below_high = std::nextafter(static_cast<float>(dist.b), -INFINITY);
      for (int64_t j = 0; j < n; ++j) {
        const float u = unit_float(stream_bits(key, begin + static_cast<uint64_t>(j)));
        out[j] =
            unit ? u
                 : std::min(below_high, static_cast<float>(dist.a + span * static_cast<double>(u)));
      }
      break;
    }
    case Distribution::Kind::normal: {
      // Box-Muller on counters 2i and 2i+1, keeping the cosine branch: one normal per element,
      // independent of its neighbours. u1 >= 2^-53, so |z| <= kLargestNormalDeviate.
      constexpr double kTwoPi = 6.283185307179586476925286766559;
      for (int64_t j = 0; j < n; ++j) {
        const uint64_t i = begin + static_cast<uint64_t>(j);
        const double u1 = static_cast<double>((stream_bits(key, 2 * i) >> 11) + 1) * 0x1p-53;
        const double u2 = static_cast<double>(stream_bits(key, 2 * i + 1) >> 11) * 0x1p-53;
        const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
        out[j] = static_cast<float>(dist.a + dist.b * z);
      }
      break;
    }
    case Distribution::Kind::constant:
      for (int64_t j = 0; j < n; ++j) out[j] = static_cast<float>(dist.a);
      break;
  }
  if (dist.outlier_every > 0) {
    // The elements first + j that are multiples of outlier_every.
    const int64_t every = dist.outlier_every;
    for (int64_t j = (every - first % every) % every; j < n; j += every)
      out[j] = static_cast<float>(dist.outlier_value);
  }
}

void generate_tensor(const Distribution& dist, uint64_t key, HostTensor& tensor, int threads) {
  float* data = tensor.begin();
  parallel_for_chunks(
      tensor.size, kChunk,
      [&](int64_t, int64_t begin, int64_t end) {
        generate(dist, key, begin, end - begin, data + begin);
      },
      threads);
}

void fill_inputs(const ProblemConfig& problem, uint64_t seed, ProblemInputs& in, int threads) {
  const ProblemShape& p = problem.shape;
  bool statistics = false;
  for (Input input : problem_inputs(p)) {
    const TensorKind kind = tensor_kind(input);
    HostTensor& tensor = in[input];
    if (const auto shape = tensor_shape(p, kind); tensor.shape != shape) tensor = HostTensor(shape);
    if (kind == TensorKind::statistics) {
      statistics = true;
      continue;
    }
    const char* name = input_name(input);
    generate_tensor(problem.inputs.at(name), tensor_stream_key(seed, name), tensor, threads);
    round_tensor(tensor, tensor_dtype(p, kind), threads);
  }
  if (statistics) fill_saved_statistics(p, in, threads);
}

ProblemInputs make_inputs(const ProblemConfig& problem, uint64_t seed, int threads) {
  ProblemInputs in;
  fill_inputs(problem, seed, in, threads);
  return in;
}

}  // namespace normbench
