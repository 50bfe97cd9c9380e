#include "app/worker/shared_tensors.hpp"

namespace normbench {

namespace {
// Page-aligned, so that the slots never share a page.
size_t aligned(size_t bytes) {
  return (bytes + 4095) / 4096 * 4096;
}
}  // namespace

TensorFormat data_format(const ProblemShape& p) {
  return {p.dtype, p.channels_last()};
}

TensorFormat param_format(const ProblemShape& p) {
  return {p.param_dtype, false};
}

SharedLayout shared_layout(const ProblemShape& p) {
  const size_t data = encoded_bytes(p.num_elements, data_format(p));
  const size_t params = encoded_bytes(p.param_size, param_format(p));
  SharedLayout l;
  size_t next = 0;
  auto place = [&](SharedSlot& slot, size_t bytes) {
    slot = {next, bytes};
    next += aligned(bytes);
  };
  place(l.x, data);
  place(l.residual, p.has_residual() ? data : 0);
  place(l.weight, p.affine ? params : 0);
  place(l.bias, p.has_bias ? params : 0);
  place(l.y, data);
  place(l.sum, p.has_residual() ? data : 0);
  place(l.sample_y, data);
  place(l.sample_sum, p.has_residual() ? data : 0);
  place(l.fresh_x, data);
  place(l.fresh_residual, p.has_residual() ? data : 0);
  place(l.fresh_weight, p.affine ? params : 0);
  place(l.fresh_bias, p.has_bias ? params : 0);
  l.end = next;
  return l;
}

}  // namespace normbench
