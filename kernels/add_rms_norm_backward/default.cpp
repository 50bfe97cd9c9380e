// add_rms_norm_backward.default: the rule list of kernels/dispatch.hpp for add_rms_norm's
// gradients, as rms_norm_backward.default's: row_in_registers wherever it takes the row (whole
// 16-byte vectors, up to 8192 elements; its plan declines the others), else the naive kernel.
// Supports every shape and format.
#include "kernels/dispatch.hpp"

namespace normbench::kernels {
NORMBENCH_REGISTER_KERNEL(make_dispatch_variant(
    Op::add_rms_norm_backward, "add_rms_norm_backward.default",
    {{"add_rms_norm_backward.row_in_registers", "rows of 16-byte vectors up to 8192", nullptr},
     {"add_rms_norm_backward.naive", "", nullptr}}));
}  // namespace normbench::kernels
