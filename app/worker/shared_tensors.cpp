#include "app/worker/shared_tensors.hpp"

namespace normbench {

namespace {
// Page-aligned, so that the slots never share a page.
size_t aligned(size_t bytes) {
  return (bytes + 4095) / 4096 * 4096;
}
}  // namespace

SharedLayout shared_layout(const ProblemShape& p) {
  const size_t x_bytes = static_cast<size_t>(p.num_elements) * sizeof(float);
  const size_t param_bytes = p.affine ? static_cast<size_t>(p.param_size) * sizeof(float) : 0;
  SharedLayout l;
  l.x = 0;
  l.weight = aligned(x_bytes);
  l.bias = l.weight + aligned(param_bytes);
  l.output = l.bias + aligned(param_bytes);
  l.sample = l.output + aligned(x_bytes);
  l.end = l.sample + aligned(x_bytes);
  return l;
}

SharedTensors shared_tensors(const ProblemShape& p, char* base) {
  const SharedLayout l = shared_layout(p);
  auto at = [base](size_t offset) { return reinterpret_cast<float*>(base + offset); };
  SharedTensors t;
  t.inputs.x = HostTensor(p.shape, at(l.x));
  if (p.affine) {
    t.inputs.weight = HostTensor(param_shape(p), at(l.weight));
    t.inputs.bias = HostTensor(param_shape(p), at(l.bias));
  }
  t.output = HostTensor(p.shape, at(l.output));
  t.sample = HostTensor(p.shape, at(l.sample));
  return t;
}

}  // namespace normbench
