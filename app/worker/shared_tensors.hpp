// Where a problem's tensors live in the host memory shared with the worker, as the device holds
// them (the problem's dtype and layout): the inputs the harness writes (kernels/tensor_roles.hpp:
// x, residual, weight, bias, dy, mean, rstd), the slots the worker copies a launch's outputs to
// (y, s, dx, dweight, dbias), second slots for one timed sample's outputs, the fresh inputs:
// another verified input set (the second-to-last trial's), which timed samples the kernel cannot
// predict run on, written to the same device addresses, and the outputs' tolerance bounds. Harness
// and worker compute the same layout from the problem; an input or output the problem does not have
// gets an empty slot.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "app/inputs/tensor_encoding.hpp"
#include "kernels/problem_shape.hpp"
#include "kernels/tensor_roles.hpp"

namespace normbench {

struct SharedSlot {
  size_t offset = 0;
  size_t bytes = 0;
};

struct SharedLayout {
  std::array<SharedSlot, kInputCount> inputs;    // by Input
  std::array<SharedSlot, kOutputCount> outputs;  // a checked launch's, by Output
  std::array<SharedSlot, kOutputCount> samples;  // one timed sample's outputs
  std::array<SharedSlot, kInputCount> fresh;     // the fresh inputs
  // The interval each output element must lie in (app/check/tolerance_bounds.hpp), as float32
  // in the output's layout, for the worker to check every timed sample of a kernel that is not
  // bitwise deterministic. Written only for such kernels: until then their pages are reserved,
  // not allocated.
  std::array<SharedSlot, kOutputCount> lower, upper;
  size_t bounds_begin = 0;  // where the bounds' slots start
  size_t end = 0;           // bytes in all

  const SharedSlot& input(Input i) const { return inputs[static_cast<size_t>(i)]; }
  const SharedSlot& output(Output o) const { return outputs[static_cast<size_t>(o)]; }
  const SharedSlot& sample(Output o) const { return samples[static_cast<size_t>(o)]; }
  const SharedSlot& fresh_input(Input i) const { return fresh[static_cast<size_t>(i)]; }
  const SharedSlot& lower_bound(Output o) const { return lower[static_cast<size_t>(o)]; }
  const SharedSlot& upper_bound(Output o) const { return upper[static_cast<size_t>(o)]; }
};

SharedLayout shared_layout(const ProblemShape& problem);

// How an output's bounds are stored: float32, in the output's layout.
TensorFormat bounds_format(const ProblemShape& problem, Output output);

// How a tensor of each kind is stored: data (x, residual, y, s, dy, dx) in the problem's dtype
// and layout, parameters (weight, bias, dweight, dbias) in param_dtype, statistics in float32.
TensorFormat tensor_format(const ProblemShape& problem, TensorKind kind);
TensorFormat data_format(const ProblemShape& problem);
TensorFormat param_format(const ProblemShape& problem);

}  // namespace normbench
