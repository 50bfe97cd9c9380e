// layer_norm_backward.default: the rule list of kernels/dispatch.hpp for layer_norm's gradients.
// Faster variants go before the baseline, each with the condition under which it wins. Supports
// every shape and format.
#include "kernels/dispatch.hpp"

namespace normbench::kernels {
NORMBENCH_REGISTER_KERNEL(make_dispatch_variant(Op::layer_norm_backward,
                                                "layer_norm_backward.default",
                                                {{"layer_norm_backward.naive", "", nullptr}}));
}  // namespace normbench::kernels
