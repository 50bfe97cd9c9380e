// group_norm.default: the rule list of kernels/dispatch.hpp for GroupNorm. Supports every shape.
// The float32-only kernels (lookahead, split_group) decline other formats by themselves; every
// non-classic problem (bfloat16/float16 data or weights, channels-last, a weight without bias)
// takes grid_tiles, written for the diffusion models' shapes (kernels/NOTES.md), but the
// channels-last ones of 1 MB or more that the chip's registers and shared memory hold, which
// take grid_registers, the smaller channels-last ones, which take cluster_tiles where a cluster
// holds a chunk of groups, and the mid-sized ones grid_registers declines, which take
// channel_sums.
// group_norm_silu.default applies the same rules to the fused twins of the same names: the
// same shape picks the same kernel with the same bytes.
#include "kernels/dispatch.hpp"

namespace normbench::kernels {
namespace {
bool non_classic(const ProblemShape& p) {
  return !p.is_classic();
}

int64_t x_bytes(const ProblemShape& p) {
  return p.num_elements * dtype_bytes(p.dtype);
}

// Channels-last x of 1 MB or more: grid_registers takes what one wave holds (up to ~30 MB on an
// H100); on the H100 it was within 1% of cluster_tiles on the smallest UNet shapes, 4-10%
// faster with SiLU, and 19-27% faster than channel_sums on the SDXL ones (kernels/NOTES.md).
bool held_channels_last(const ProblemShape& p) {
  return p.channels_last() && x_bytes(p) >= (int64_t{1} << 20);
}

// Channels-last x of up to 8 MB: the small UNet shapes, where grid_tiles' two
// grid barriers cost more than the data (kernels/NOTES.md, "The latency regime").
bool small_channels_last(const ProblemShape& p) {
  return p.channels_last() && x_bytes(p) <= (int64_t{8} << 20);
}

// Channels-last x of up to 24 MB, which channel_sums reads a second time mostly from L2; on the
// larger ones grid_tiles was faster on the H100 (kernels/NOTES.md).
bool mid_channels_last(const ProblemShape& p) {
  return p.channels_last() && x_bytes(p) <= (int64_t{24} << 20);
}

std::vector<DispatchRule> rules(const std::string& op) {
  return {{op + ".lookahead", "groups >= 64K elements", long_segments},
          {op + ".split_group", "groups >= 64K elements", long_segments},
          {op + ".grid_registers", "channels-last x of 1 MB or more", held_channels_last},
          {op + ".cluster_tiles", "channels-last x up to 8 MB", small_channels_last},
          {op + ".channel_sums", "channels-last x up to 24 MB", mid_channels_last},
          {op + ".grid_tiles", "16-bit, channels-last or weight without bias", non_classic},
          {op + ".block_per_group", "", nullptr}};
}
}  // namespace

NORMBENCH_REGISTER_KERNEL(make_dispatch_variant(Op::group_norm, "group_norm.default",
                                                rules("group_norm")));
NORMBENCH_REGISTER_KERNEL(make_dispatch_variant(Op::group_norm_silu, "group_norm_silu.default",
                                                rules("group_norm_silu")));
}  // namespace normbench::kernels
