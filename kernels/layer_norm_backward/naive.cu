// layer_norm_backward.naive: the baseline (families/naive_backward.cuh). Supports every shape and
// format.
#include "kernels/families/naive_backward.cuh"

namespace normbench::kernels {

NORMBENCH_REGISTER_KERNEL(make_variant(
    Op::layer_norm_backward, "layer_norm_backward.naive",
    "baseline: dx by a block of 256 threads per row on the saved mean and rstd, float32 "
    "sums; dweight, dbias by a thread per column over the rows, no atomics",
    launch_naive_backward, naive_backward_unsupported, nullptr, /*is_baseline=*/true,
    Accepts::everything()));
}  // namespace normbench::kernels
