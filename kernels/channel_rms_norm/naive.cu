// channel_rms_norm.naive: the baseline. One thread per segment (the C channels of one sample at
// one spatial position, `spatial` elements apart): a pass over its channels for the mean
// square, accumulated in double as the other naive kernels do so that thousands of channels
// keep their precision, then a pass that normalizes. Consecutive threads take consecutive
// positions, so every load and store is coalesced across a warp; x is read twice. Supports
// every shape and format.
#include <limits>

#include "kernels/device/element_types.cuh"
#include "kernels/registry.hpp"

namespace normbench::kernels {
namespace {
constexpr int kThreads = 256;

template <class T, class P>
__global__ void __launch_bounds__(kThreads)
    channel_rms_naive_kernel(const T* __restrict__ x, const P* __restrict__ weight,
                             T* __restrict__ y, int64_t segments, int64_t channels, int64_t spatial,
                             double eps) {
  const int64_t segment = blockIdx.x * int64_t{kThreads} + threadIdx.x;
  if (segment >= segments) return;
  const int64_t first = segment / spatial * channels * spatial + segment % spatial;
  double squares = 0.0;
  for (int64_t c = 0; c < channels; ++c) {
    const double v = to_float<T>(x[first + c * spatial]);
    squares += v * v;
  }
  const auto rstd = static_cast<float>(1.0 / sqrt(squares / static_cast<double>(channels) + eps));
  for (int64_t c = 0; c < channels; ++c) {
    float v = to_float<T>(x[first + c * spatial]) * rstd;
    if (weight) v *= to_float<P>(weight[c]);
    y[first + c * spatial] = from_float<T>(v);
  }
}

std::optional<std::string> unsupported(const ProblemShape& p, const DeviceCaps&) {
  if (ceil_div(p.num_segments, kThreads) > std::numeric_limits<int>::max())
    return "more than 2^31-1 blocks of 256 segments";
  return std::nullopt;
}

cudaError_t launch(const ProblemShape& p, const DeviceCaps&, const KernelArgs& args) {
  return with_element_types(p, [&](auto data, auto param) {
    using T = typename decltype(data)::type;
    using P = typename decltype(param)::type;
    const auto blocks = static_cast<unsigned>(ceil_div(p.num_segments, kThreads));
    channel_rms_naive_kernel<T, P><<<blocks, kThreads, 0, args.stream>>>(
        static_cast<const T*>(args.x), static_cast<const P*>(args.weight), static_cast<T*>(args.y),
        p.num_segments, p.channels, p.spatial, p.eps);
    return cudaGetLastError();
  });
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::channel_rms_norm, "channel_rms_norm.naive",
    "baseline: a thread per (sample, position), double accumulation, 2 passes over memory", launch,
    unsupported, nullptr, /*is_baseline=*/true, Accepts::everything()));
}  // namespace normbench::kernels
