// add_rms_norm.default: the rule list of kernels/dispatch.hpp for add_rms_norm. Supports every
// shape and format.
#include "kernels/dispatch.hpp"

namespace normbench::kernels {
NORMBENCH_REGISTER_KERNEL(
    make_dispatch_variant(Op::add_rms_norm, "add_rms_norm.default",
                          {{"add_rms_norm.row_in_registers",
                            "rows of 16-byte vectors up to 32K 16-bit / 16K float32", nullptr},
                           {"add_rms_norm.block_per_row", "", nullptr}}));
}  // namespace normbench::kernels
