#include "kernels/problem_shape.hpp"

#include <utility>

#include "kernels/tensor_roles.hpp"

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
    case Op::rms_norm:
      return "rms_norm";
    case Op::add_rms_norm:
      return "add_rms_norm";
    case Op::channel_rms_norm:
      return "channel_rms_norm";
    case Op::group_norm_silu:
      return "group_norm_silu";
    case Op::layer_norm_backward:
      return "layer_norm_backward";
    case Op::rms_norm_backward:
      return "rms_norm_backward";
    case Op::group_norm_backward:
      return "group_norm_backward";
    case Op::add_rms_norm_backward:
      return "add_rms_norm_backward";
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
      return "GroupNorm over NCHW or channels-last (any number of spatial dims), per-channel "
             "weight/bias";
    case Op::layer_norm_gelu_scale:
      return "LayerNorm, then exact (erf) GELU, then times a scalar `scale`";
    case Op::rms_norm:
      return "RMSNorm over the trailing normalized_shape dims (torch.nn.functional.rms_norm), "
             "optional weight";
    case Op::add_rms_norm:
      return "s = x + residual, y = rms_norm(s): both s and y written";
    case Op::channel_rms_norm:
      return "RMSNorm over dim 1 (the channels) of NCHW x, per position: x / sqrt(mean over C "
             "of x^2 + eps), optional per-channel weight";
    case Op::group_norm_silu:
      return "GroupNorm as group_norm, then SiLU v * sigmoid(v) (the GroupNorm + SiLU of "
             "diffusion UNets)";
    case Op::layer_norm_backward:
      return "layer_norm's gradients: dx, dweight, dbias from x, dy, weight and the saved "
             "mean and rstd";
    case Op::rms_norm_backward:
      return "rms_norm's gradients: dx, dweight from x, dy, weight and the saved rstd";
    case Op::group_norm_backward:
      return "group_norm's gradients (NCHW or channels-last): dx, dweight, dbias per channel "
             "from x, dy, weight and the saved mean and rstd";
    case Op::add_rms_norm_backward:
      return "add_rms_norm's gradients: dx (of x and of residual) = rms_norm's dx of s plus "
             "ds_out, dweight, from s (in x), dy, ds_out, weight and the saved rstd";
  }
  return "";
}

bool is_backward(Op op) {
  return op == Op::layer_norm_backward || op == Op::rms_norm_backward ||
         op == Op::group_norm_backward || op == Op::add_rms_norm_backward;
}

bool is_grouped(Op op) {
  return op == Op::group_norm || op == Op::group_norm_silu || op == Op::group_norm_backward;
}

Op forward_op(Op op) {
  switch (op) {
    case Op::layer_norm_backward:
      return Op::layer_norm;
    case Op::rms_norm_backward:
      return Op::rms_norm;
    case Op::group_norm_backward:
      return Op::group_norm;
    case Op::add_rms_norm_backward:
      return Op::add_rms_norm;
    default:
      return op;
  }
}

Op statistics_op(Op op) {
  return op == Op::add_rms_norm_backward ? Op::rms_norm : forward_op(op);
}

int64_t ProblemShape::read_bytes() const {
  int64_t bytes = 0;
  for (Input input : problem_inputs(*this)) {
    const TensorKind kind = tensor_kind(input);
    bytes += dtype_bytes(tensor_dtype(*this, kind)) * tensor_elements(*this, kind);
  }
  return bytes;
}

int64_t ProblemShape::write_bytes() const {
  int64_t bytes = 0;
  for (Output output : problem_outputs(*this)) {
    const TensorKind kind = tensor_kind(output);
    bytes += dtype_bytes(tensor_dtype(*this, kind)) * tensor_elements(*this, kind);
  }
  return bytes;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return "float32";
    case DType::bfloat16:
      return "bfloat16";
    case DType::float16:
      return "float16";
  }
  return "unknown";
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (DType d : kAllDTypes)
    if (dtype_name(d) == name) return d;
  return std::nullopt;
}

int64_t dtype_bytes(DType dtype) {
  return dtype == DType::float32 ? 4 : 2;
}

double unit_roundoff(DType dtype) {
  switch (dtype) {
    case DType::float32:
      return 0x1p-24;
    case DType::bfloat16:
      return 0x1p-8;
    case DType::float16:
      return 0x1p-11;
  }
  return 0.0;
}

std::string_view layout_name(Layout layout) {
  return layout == Layout::nhwc ? "nhwc" : "nchw";
}

std::optional<Layout> layout_from_name(std::string_view name) {
  if (name == "nchw") return Layout::nchw;
  if (name == "nhwc") return Layout::nhwc;
  return std::nullopt;
}

ProblemShape make_problem_shape(Op op, std::vector<int64_t> shape,
                                std::vector<int64_t> normalized_shape, int64_t groups, double eps,
                                double scale, bool affine, const ProblemFormat& format) {
  ProblemShape p;
  p.op = op;
  p.shape = std::move(shape);
  p.normalized_shape = std::move(normalized_shape);
  p.groups = groups;
  p.eps = eps;
  p.scale = scale;
  p.affine = affine;
  p.dtype = format.dtype;
  p.param_dtype = format.param_dtype;
  p.layout = p.grouped() ? format.layout : Layout::nchw;
  p.has_bias = affine && format.has_bias && p.centered();
  p.num_elements = product(p.shape);
  if (p.grouped()) {
    p.channels = p.shape.at(1);
    p.spatial = product(p.shape, 2);
    p.segment_size = (p.channels / groups) * p.spatial;
    p.param_size = p.channels;
  } else if (op == Op::channel_rms_norm) {
    p.channels = p.shape.at(1);
    p.spatial = product(p.shape, 2);
    p.segment_size = p.channels;
    p.param_size = p.channels;
  } else {
    p.segment_size = product(p.normalized_shape);
    p.param_size = p.segment_size;
  }
  p.num_segments = p.num_elements / p.segment_size;
  return p;
}

}  // namespace normbench
