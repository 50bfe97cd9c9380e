// channel_rms_norm.default: the rule list of kernels/dispatch.hpp for RMSNorm over dim 1.
// Supports every shape and format: past 128 channels the baseline, whose thread per position is
// coalesced too but reads x twice.
#include "kernels/dispatch.hpp"

namespace normbench::kernels {
NORMBENCH_REGISTER_KERNEL(make_dispatch_variant(Op::channel_rms_norm, "channel_rms_norm.default",
                                                {{"channel_rms_norm.column_in_registers",
                                                  "up to 128 channels", nullptr},
                                                 {"channel_rms_norm.naive", "", nullptr}}));
}  // namespace normbench::kernels
