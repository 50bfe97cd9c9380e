// Where a problem's tensors live in the host memory shared with the worker: the inputs the
// harness generates (x, weight, bias), the output slot the worker copies a kernel's output to
// for verification, and a second slot for one timed sample's output. Harness and worker
// compute the same layout from the problem.
#pragma once

#include <cstddef>

#include "app/inputs/host_tensor.hpp"
#include "app/inputs/inputs.hpp"
#include "kernels/problem_shape.hpp"

namespace normbench {

struct SharedLayout {
  size_t x = 0, weight = 0, bias = 0, output = 0, sample = 0;  // byte offsets
  size_t end = 0;                                              // bytes in all
};

SharedLayout shared_layout(const ProblemShape& problem);

struct SharedTensors {
  ProblemInputs inputs;  // views of x, weight and bias (weight and bias empty when !affine)
  HostTensor output;
  HostTensor sample;
};

// Views of the problem's tensors in the shared memory at `base`.
SharedTensors shared_tensors(const ProblemShape& problem, char* base);

}  // namespace normbench
