// How many CUDA GPUs this process can see, asked of a short-lived child process: the harness
// itself must make no CUDA call, since its device workers are forked from it and a forked
// child cannot use a CUDA context its parent made (app/worker/worker_process.hpp).
#pragma once

namespace normbench {

// The number of visible GPUs (CUDA_VISIBLE_DEVICES applies). Throws RuntimeError (exit 3)
// when there is none or no usable driver, with the same message as a run without a GPU.
int count_visible_devices();

}  // namespace normbench
