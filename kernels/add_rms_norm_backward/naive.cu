// add_rms_norm_backward.naive: the baseline (families/naive_backward.cuh): rms_norm_backward's
// naive kernels with ds_out added to dx. Supports every shape and format.
#include "kernels/families/naive_backward.cuh"

namespace normbench::kernels {

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::add_rms_norm_backward, "add_rms_norm_backward.naive",
    "baseline: dx by a block of 256 threads per row on the saved rstd, float32 sums, plus "
    "ds_out; dweight by a thread per column over the rows, no atomics",
    launch_naive_backward, naive_backward_unsupported, nullptr, /*is_baseline=*/true,
    Accepts::everything()));
}  // namespace normbench::kernels
