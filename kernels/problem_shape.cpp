#include "kernels/problem_shape.hpp"

#include <functional>
#include <numeric>
#include <utility>

namespace normbench {

namespace {
int64_t product(const std::vector<int64_t>& dims, size_t first = 0) {
  int64_t p = 1;
  for (size_t i = first; i < dims.size(); ++i) p *= dims[i];
  return p;
}
}  // namespace

std::string_view op_name(Op op) {
  switch (op) {
    case Op::layer_norm:
      return "layer_norm";
    case Op::group_norm:
      return "group_norm";
    case Op::layer_norm_gelu_scale:
      return "layer_norm_gelu_scale";
  }
  return "unknown";
}

std::optional<Op> op_from_name(std::string_view name) {
  for (Op op : kAllOps)
    if (op_name(op) == name) return op;
  return std::nullopt;
}

std::string_view op_description(Op op) {
  switch (op) {
    case Op::layer_norm:
      return "LayerNorm over the trailing normalized_shape dims, weight/bias of normalized_shape";
    case Op::group_norm:
      return "GroupNorm over NCHW (any number of spatial dims), per-channel weight/bias";
    case Op::layer_norm_gelu_scale:
      return "LayerNorm, then exact (erf) GELU, then times a scalar `scale`";
  }
  return "";
}

ProblemShape make_problem_shape(Op op, std::vector<int64_t> shape,
                                std::vector<int64_t> normalized_shape, int64_t groups, double eps,
                                double scale, bool affine) {
  ProblemShape p;
  p.op = op;
  p.shape = std::move(shape);
  p.normalized_shape = std::move(normalized_shape);
  p.groups = groups;
  p.eps = eps;
  p.scale = scale;
  p.affine = affine;
  p.num_elements = product(p.shape);
  if (op == Op::group_norm) {
    p.channels = p.shape.at(1);
    p.spatial = product(p.shape, 2);
    p.segment_size = (p.channels / groups) * p.spatial;
    p.param_size = p.channels;
  } else {
    p.segment_size = product(p.normalized_shape);
    p.param_size = p.segment_size;
  }
  p.num_segments = p.num_elements / p.segment_size;
  return p;
}

}  // namespace normbench
