// group_norm_silu.naive: the baseline (families/naive_kernel.cuh), GroupNorm as group_norm.naive
// with SiLU applied to each output in registers. Supports every shape and format: NCHW groups
// are contiguous, channels-last groups are read through a strided view.
#include "kernels/families/naive_launch.cuh"

namespace normbench::kernels {
namespace {
cudaError_t launch(const ProblemShape& p, const DeviceCaps&, const KernelArgs& args) {
  return with_element_types(p, [&](auto data, auto param) {
    using T = typename decltype(data)::type;
    using P = typename decltype(param)::type;
    if (p.channels_last())
      return launch_naive_as<T, Norm::centered>(p, args, channels_last_segments(p),
                                                channels_last_params<P>(p, args), SiluEpilogue{});
    return launch_naive_as<T, Norm::centered>(p, args, ContiguousSegments{},
                                              typed_channel_params<P>(p, args), SiluEpilogue{});
  });
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::group_norm_silu, "group_norm_silu.naive",
    "baseline: a block of 256 threads per group, smem tree reduction, 3 passes, SiLU on y", launch,
    naive_unsupported, nullptr, /*is_baseline=*/true, Accepts::everything()));
}  // namespace normbench::kernels
