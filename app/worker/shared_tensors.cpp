#include "app/worker/shared_tensors.hpp"

#include <algorithm>

namespace normbench {

namespace {
// Page-aligned, so that the slots never share a page.
size_t aligned(size_t bytes) {
  return (bytes + 4095) / 4096 * 4096;
}

template <class Role>
size_t bytes_of(const ProblemShape& p, Role role, const std::vector<Role>& present) {
  if (std::find(present.begin(), present.end(), role) == present.end()) return 0;
  const TensorKind kind = tensor_kind(role);
  return encoded_bytes(tensor_elements(p, kind), tensor_format(p, kind));
}
}  // namespace

TensorFormat tensor_format(const ProblemShape& p, TensorKind kind) {
  return {tensor_dtype(p, kind), tensor_channels_last(p, kind)};
}

TensorFormat bounds_format(const ProblemShape& p, Output output) {
  return {DType::float32, tensor_channels_last(p, tensor_kind(output))};
}

TensorFormat data_format(const ProblemShape& p) {
  return tensor_format(p, TensorKind::data);
}

TensorFormat param_format(const ProblemShape& p) {
  return tensor_format(p, TensorKind::params);
}

SharedLayout shared_layout(const ProblemShape& p) {
  const std::vector<Input> inputs = problem_inputs(p);
  const std::vector<Output> outputs = problem_outputs(p);
  SharedLayout l;
  size_t next = 0;
  auto place = [&](SharedSlot& slot, size_t bytes) {
    slot = {next, bytes};
    next += aligned(bytes);
  };
  for (Input i : kAllInputs) place(l.inputs[static_cast<size_t>(i)], bytes_of(p, i, inputs));
  for (Output o : kAllOutputs) place(l.outputs[static_cast<size_t>(o)], bytes_of(p, o, outputs));
  for (Output o : kAllOutputs) place(l.samples[static_cast<size_t>(o)], bytes_of(p, o, outputs));
  for (Input i : kAllInputs) place(l.fresh[static_cast<size_t>(i)], bytes_of(p, i, inputs));
  l.bounds_begin = next;
  for (Output o : kAllOutputs) {
    const bool present = std::find(outputs.begin(), outputs.end(), o) != outputs.end();
    const size_t bytes =
        present ? encoded_bytes(tensor_elements(p, tensor_kind(o)), bounds_format(p, o)) : 0;
    place(l.lower[static_cast<size_t>(o)], bytes);
    place(l.upper[static_cast<size_t>(o)], bytes);
  }
  l.end = next;
  return l;
}

}  // namespace normbench
