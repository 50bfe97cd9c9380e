// channel_rms_norm.column_in_registers: x read once and y written once, for up to 128
// channels (KernelBench's RMSNorm over dim 1 has 64).
//
// A thread owns kVec consecutive spatial positions of one sample and holds their whole column
// of channels in registers (kMaxChannels x kVec floats): one pass over the channels loads
// x[n, c, s..s+kVec) with stride `spatial` and sums the squares in float32, then the same
// registers are scaled by rsqrt(mean square + eps) (and weight[c]) and stored. Consecutive
// threads own consecutive positions, so each channel's loads and stores are coalesced across
// a warp, and all of a thread's kMaxChannels loads are independent, which keeps enough bytes
// in flight to saturate DRAM without shared memory or synchronisation.
//
// kVec positions are one aligned access of up to 16 bytes where `spatial` is a multiple of
// kVec (every column then starts on a multiple of kVec elements of a 256-byte-aligned
// buffer); else one position a thread. kMaxChannels x kVec stays at 64 floats (128 for the
// widest columns), so the column never spills. The smallest kMaxChannels that holds C is
// launched; channels past C are skipped by a uniform guard.
#include <limits>

#include "kernels/device/element_types.cuh"
#include "kernels/registry.hpp"

namespace normbench::kernels {
namespace {
constexpr int kThreads = 256;
constexpr int64_t kMaxChannels = 128;

// kVec elements of T loaded or stored as one access (4, 8 or 16 bytes; 2 for one 16-bit value).
template <class T, int kVec>
struct alignas(sizeof(T) * kVec) Elements {
  T v[kVec];
};

template <class T, class P, int kColumn, int kVec>
__global__ void __launch_bounds__(kThreads)
    column_kernel(const T* __restrict__ x, const P* __restrict__ weight, T* __restrict__ y,
                  int64_t columns, int64_t columns_per_sample, int channels, int64_t spatial,
                  float eps) {
  using Access = Elements<T, kVec>;
  const int64_t column = blockIdx.x * int64_t{kThreads} + threadIdx.x;
  if (column >= columns) return;
  const int64_t first =
      column / columns_per_sample * channels * spatial + column % columns_per_sample * kVec;
  float v[kColumn][kVec];
  float squares[kVec] = {};
#pragma unroll
  for (int c = 0; c < kColumn; ++c) {
    if (c < channels) {
      const Access in = *reinterpret_cast<const Access*>(x + first + c * spatial);
#pragma unroll
      for (int k = 0; k < kVec; ++k) {
        v[c][k] = to_float<T>(in.v[k]);
        squares[k] += v[c][k] * v[c][k];
      }
    }
  }
  float rstd[kVec];
#pragma unroll
  for (int k = 0; k < kVec; ++k) rstd[k] = rsqrtf(squares[k] / static_cast<float>(channels) + eps);
#pragma unroll
  for (int c = 0; c < kColumn; ++c) {
    if (c < channels) {
      const float w = weight ? to_float<P>(__ldg(weight + c)) : 1.0f;
      Access out;
#pragma unroll
      for (int k = 0; k < kVec; ++k) out.v[k] = from_float<T>(v[c][k] * rstd[k] * w);
      *reinterpret_cast<Access*>(y + first + c * spatial) = out;
    }
  }
}

// The widest access that keeps the column at 64 floats, up to 16 bytes.
template <class T, int kColumn>
constexpr int widest_access() {
  const int by_registers = kColumn >= 64 ? 1 : 64 / kColumn;
  const int by_bytes = 16 / static_cast<int>(sizeof(T));
  return by_registers < by_bytes ? by_registers : by_bytes;
}

template <class T, class P, int kColumn, int kVec>
cudaError_t launch_as(const ProblemShape& p, const KernelArgs& args) {
  const int64_t columns_per_sample = p.spatial / kVec;
  const int64_t columns = p.num_elements / p.channels / kVec;
  column_kernel<T, P, kColumn, kVec>
      <<<static_cast<unsigned>(ceil_div(columns, kThreads)), kThreads, 0, args.stream>>>(
          static_cast<const T*>(args.x), static_cast<const P*>(args.weight),
          static_cast<T*>(args.y), columns, columns_per_sample, static_cast<int>(p.channels),
          p.spatial, static_cast<float>(p.eps));
  return cudaGetLastError();
}

template <class T, class P, int kColumn>
cudaError_t launch_column(const ProblemShape& p, const KernelArgs& args) {
  constexpr int kVec = widest_access<T, kColumn>();
  if (kVec > 1 && p.spatial % kVec == 0) return launch_as<T, P, kColumn, kVec>(p, args);
  return launch_as<T, P, kColumn, 1>(p, args);
}

std::optional<std::string> unsupported(const ProblemShape& p, const DeviceCaps&) {
  if (p.channels > kMaxChannels)
    return "more than 128 channels: a column of channels is held in registers";
  if (ceil_div(p.num_segments, kThreads) > std::numeric_limits<int>::max())
    return "more than 2^31-1 blocks of 256 positions";
  return std::nullopt;
}

cudaError_t launch(const ProblemShape& p, const DeviceCaps&, const KernelArgs& args) {
  return with_element_types(p, [&](auto data, auto param) {
    using T = typename decltype(data)::type;
    using P = typename decltype(param)::type;
    if (p.channels <= 16) return launch_column<T, P, 16>(p, args);
    if (p.channels <= 32) return launch_column<T, P, 32>(p, args);
    if (p.channels <= 64) return launch_column<T, P, 64>(p, args);
    return launch_column<T, P, 128>(p, args);
  });
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::channel_rms_norm, "channel_rms_norm.column_in_registers",
    "a thread per 1-8 positions holds its column of channels in registers: coalesced, x read "
    "once, float32 sums",
    launch, unsupported, nullptr, /*is_baseline=*/false, Accepts::everything()));
}  // namespace normbench::kernels
