// Where a problem's tensors live in the host memory shared with the worker, as the device holds
// them (the problem's dtype and layout): the inputs the harness writes (x, residual, weight,
// bias), the slots the worker copies a launch's outputs to (y, and s for add_rms_norm), and
// second slots for one timed sample's outputs, and the fresh inputs: another verified input set
// (the second-to-last trial's), which timed samples the kernel cannot predict run on, written to
// the same device addresses. Harness and worker compute the same layout from the problem; an
// input or output the problem does not have gets an empty slot.
#pragma once

#include <cstddef>
#include <vector>

#include "app/inputs/tensor_encoding.hpp"
#include "kernels/problem_shape.hpp"

namespace normbench {

struct SharedSlot {
  size_t offset = 0;
  size_t bytes = 0;
};

struct SharedLayout {
  SharedSlot x, residual, weight, bias;                          // inputs
  SharedSlot y, sum;                                             // a checked launch's outputs
  SharedSlot sample_y, sample_sum;                               // one timed sample's outputs
  SharedSlot fresh_x, fresh_residual, fresh_weight, fresh_bias;  // the fresh inputs
  size_t end = 0;                                                // bytes in all
};

SharedLayout shared_layout(const ProblemShape& problem);

// How x, residual, y and s are stored; how weight and bias are.
TensorFormat data_format(const ProblemShape& problem);
TensorFormat param_format(const ProblemShape& problem);

}  // namespace normbench
