// group_norm_silu.block_per_group: group_norm.block_per_group (families/block_per_segment.cuh)
// with SiLU on each output in registers: the same passes and bytes. Supports every shape and
// format; the dispatch's fallback.
#include "kernels/families/block_per_segment.cuh"

namespace normbench::kernels {
namespace {
cudaError_t launch(const ProblemShape& p, const DeviceCaps& device, const KernelArgs& args) {
  // float32 NCHW with weight and bias or neither: group_norm's classic instantiation.
  if (p.is_classic())
    return launch_block_per_segment<float, Norm::centered>(p, device, args, channel_params(p, args),
                                                           SiluEpilogue{});
  return with_element_types(p, [&](auto data, auto param) {
    using T = typename decltype(data)::type;
    using P = typename decltype(param)::type;
    if (p.channels_last())
      return launch_block_per_segment_as<T, 1, Norm::centered>(
          p, device, args, channels_last_segments(p), channels_last_params<P>(p, args),
          SiluEpilogue{});
    return launch_block_per_segment<T, Norm::centered>(
        p, device, args, typed_channel_params<P>(p, args), SiluEpilogue{});
  });
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::group_norm_silu, "group_norm_silu.block_per_group",
    "general: a block of 512 threads per group, CUB reductions, 3 passes, any shape, SiLU on y",
    launch, nullptr, nullptr, /*is_baseline=*/false, Accepts::everything()));
}  // namespace normbench::kernels
