// group_norm.block_per_group: the general kernel (families/block_per_segment.cuh). Supports
// every shape and format (channels-last groups with scalar accesses through a strided view);
// the dispatch's fallback. group_norm_silu.block_per_group is the same kernel with SiLU on each
// output in registers (its epilogue).
#include "kernels/families/block_per_segment.cuh"

namespace normbench::kernels {
namespace {
template <class Epilogue>
cudaError_t launch(const ProblemShape& p, const DeviceCaps& device, const KernelArgs& args) {
  // float32 NCHW with weight and bias or neither: the instantiations of the committed results.
  if (p.is_classic())
    return launch_block_per_segment<float, Norm::centered>(p, device, args, channel_params(p, args),
                                                           Epilogue{});
  return with_element_types(p, [&](auto data, auto param) {
    using T = typename decltype(data)::type;
    using P = typename decltype(param)::type;
    if (p.channels_last())
      return launch_block_per_segment_as<T, 1, Norm::centered>(
          p, device, args, channels_last_segments(p), channels_last_params<P>(p, args), Epilogue{});
    return launch_block_per_segment<T, Norm::centered>(
        p, device, args, typed_channel_params<P>(p, args), Epilogue{});
  });
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::group_norm, "group_norm.block_per_group",
    "general: a block of 512 threads per group, CUB reductions, 3 passes, any shape",
    launch<IdentityEpilogue>, nullptr, nullptr, /*is_baseline=*/false, Accepts::everything()));
NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::group_norm_silu, "group_norm_silu.block_per_group",
    "general: a block of 512 threads per group, CUB reductions, 3 passes, any shape, SiLU on y",
    launch<SiluEpilogue>, nullptr, nullptr, /*is_baseline=*/false, Accepts::everything()));
}  // namespace normbench::kernels
