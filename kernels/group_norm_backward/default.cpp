// group_norm_backward.default: the rule list of kernels/dispatch.hpp for group_norm's gradients.
// Faster variants go before the baseline, each with the condition under which it wins. Supports
// every shape and format: channel_sums declines rows that are not 16-byte vectors.
#include "kernels/dispatch.hpp"

namespace normbench::kernels {
NORMBENCH_REGISTER_KERNEL(
    make_dispatch_variant(Op::group_norm_backward, "group_norm_backward.default",
                          {{"group_norm_backward.channel_sums", "rows of 16-byte vectors", nullptr},
                           {"group_norm_backward.naive", "", nullptr}}));
}  // namespace normbench::kernels
