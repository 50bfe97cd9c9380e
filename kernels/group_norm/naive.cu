// group_norm.naive: the baseline (families/naive_kernel.cuh). Supports every shape and format:
// NCHW groups are contiguous, channels-last groups are read through a strided view.
// group_norm_silu.naive, that op's baseline, is the same kernel with SiLU on each output in
// registers (its epilogue).
#include "kernels/families/naive_launch.cuh"

namespace normbench::kernels {
namespace {
template <class Epilogue>
cudaError_t launch(const ProblemShape& p, const DeviceCaps&, const KernelArgs& args) {
  const ContiguousSegments nchw;
  // float32 NCHW with weight and bias or neither: the instantiation of the committed results.
  if (p.is_classic())
    return launch_naive_as<float, Norm::centered>(p, args, nchw, channel_params(p, args),
                                                  Epilogue{});
  return with_element_types(p, [&](auto data, auto param) {
    using T = typename decltype(data)::type;
    using P = typename decltype(param)::type;
    if (p.channels_last())
      return launch_naive_as<T, Norm::centered>(p, args, channels_last_segments(p),
                                                channels_last_params<P>(p, args), Epilogue{});
    return launch_naive_as<T, Norm::centered>(p, args, nchw, typed_channel_params<P>(p, args),
                                              Epilogue{});
  });
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::group_norm, "group_norm.naive",
    "baseline: a block of 256 threads per group, smem tree reduction, 3 passes over memory",
    launch<IdentityEpilogue>, naive_unsupported, nullptr, /*is_baseline=*/true,
    Accepts::everything()));
NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::group_norm_silu, "group_norm_silu.naive",
    "baseline: a block of 256 threads per group, smem tree reduction, 3 passes, SiLU on y",
    launch<SiluEpilogue>, naive_unsupported, nullptr, /*is_baseline=*/true, Accepts::everything()));
}  // namespace normbench::kernels
