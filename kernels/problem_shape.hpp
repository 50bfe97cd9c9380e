// The vocabulary shared by kernels, the reference and the harness: which normalization a
// problem asks for, in which element types and memory layout, and the geometry a kernel needs
// to compute it. Host-only, no CUDA.
//
// Every op normalizes "segments" of x: a LayerNorm/RMSNorm row (the trailing normalized dims),
// a GroupNorm group (C/G channels times the spatial dims; group_norm_silu's too) or, for
// channel_rms_norm, the C channels of one (sample, spatial position). A backward op
// (layer_norm_backward, ...) has the geometry of the forward op it differentiates: its
// segments, weight and formats are that op's, and its inputs and outputs are the gradients
// (kernels/tensor_roles.hpp). In the *logical* order (row-major over `shape`,
// NCHW for GroupNorm and channel_rms_norm) a row or group is contiguous; a channels-last
// GroupNorm stores x as (N, spatial..., C), so there a group is strided in memory, and a
// channel_rms_norm segment is strided by `spatial` in the logical order and in memory alike.
// Weight and bias are indexed per element of a row or per channel; `param_index` below is the
// single definition of that mapping over logical indices.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace normbench {

// The values are the plugin ABI's nb_op numbers (plugin.h): new ops go at the end.
enum class Op {
  layer_norm,
  group_norm,
  layer_norm_gelu_scale,
  rms_norm,
  add_rms_norm,
  channel_rms_norm,
  group_norm_silu,
  layer_norm_backward,
  rms_norm_backward,
  group_norm_backward,
  add_rms_norm_backward
};

inline constexpr Op kAllOps[] = {Op::layer_norm,
                                 Op::group_norm,
                                 Op::layer_norm_gelu_scale,
                                 Op::rms_norm,
                                 Op::add_rms_norm,
                                 Op::channel_rms_norm,
                                 Op::group_norm_silu,
                                 Op::layer_norm_backward,
                                 Op::rms_norm_backward,
                                 Op::group_norm_backward,
                                 Op::add_rms_norm_backward};

std::string_view op_name(Op op);
std::optional<Op> op_from_name(std::string_view name);
// The backward ops differentiate a forward op (layer_norm_backward: layer_norm); a forward op's
// forward_op is itself.
bool is_backward(Op op);
Op forward_op(Op op);
// The op whose statistics of x a backward op is given (the forward reference computes them):
// its forward op, but rms_norm for add_rms_norm_backward, whose x is the sum s that add_rms_norm
// normalizes as rms_norm does. A forward op's is itself.
Op statistics_op(Op op);
// The GroupNorm ops (group_norm, group_norm_silu, group_norm_backward): groups of channels, NCHW
// or channels-last, with the same segments and parameters.
bool is_grouped(Op op);
// One line for `normbench list`.
std::string_view op_description(Op op);

// Element types of tensors in device memory. Kernels accumulate in float32 whatever the type.
enum class DType { float32, bfloat16, float16 };
inline constexpr DType kAllDTypes[] = {DType::float32, DType::bfloat16, DType::float16};
std::string_view dtype_name(DType dtype);
std::optional<DType> dtype_from_name(std::string_view name);
int64_t dtype_bytes(DType dtype);
// Half the distance between 1 and the next representable number: the largest relative error of
// rounding to nearest (2^-24 float32, 2^-8 bfloat16, 2^-11 float16).
double unit_roundoff(DType dtype);

// How a GroupNorm's x and y lie in memory: NCHW (contiguous in the logical order) or
// channels-last (N, spatial..., C), as torch.channels_last. Other ops are always contiguous.
enum class Layout { nchw, nhwc };
std::string_view layout_name(Layout layout);
std::optional<Layout> layout_from_name(std::string_view name);

// Integer division rounding up: chunks, tiles and blocks needed to cover a count.
inline int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

struct ProblemShape {
  Op op = Op::layer_norm;
  std::vector<int64_t> shape;  // logical shape of x (row-major; NCHW for the channel ops)
  std::vector<int64_t> normalized_shape;  // row ops: trailing dims normalized together
  int64_t groups = 0;                     // the GroupNorm ops: number of groups

  DType dtype = DType::float32;        // x, residual, y and s; dy, ds_out and dx
  DType param_dtype = DType::float32;  // weight and bias; dweight and dbias: dtype or float32
  Layout layout = Layout::nchw;        // the GroupNorm ops only

  int64_t num_elements = 0;
  int64_t num_segments = 0;  // rows, N * groups, or N * spatial (channel_rms_norm)
  int64_t segment_size = 0;  // elements normalized together (channel_rms_norm: C)
  int64_t channels = 0;      // the GroupNorm ops, channel_rms_norm: C = shape[1]
  int64_t spatial = 1;       // the GroupNorm ops, channel_rms_norm: product of shape[2:]
  int64_t param_size = 0;    // elements of weight and of bias

  double eps = 1e-5;
  double scale = 1.0;  // layer_norm_gelu_scale: the output is multiplied by it
  // A weight is given (backward ops: and dweight is an output).
  bool affine = true;
  // A bias is given (only with a weight; never for the RMSNorm ops). Backward ops: dbias is an
  // output; the bias itself is not an input, since no gradient depends on it.
  bool has_bias = true;

  bool is_backward() const { return normbench::is_backward(op); }
  Op forward_op() const { return normbench::forward_op(op); }
  // LayerNorm and GroupNorm subtract the mean; the RMSNorm ops divide by the root mean square
  // only.
  bool centered() const {
    return op != Op::rms_norm && op != Op::add_rms_norm && op != Op::channel_rms_norm &&
           op != Op::rms_norm_backward && op != Op::add_rms_norm_backward;
  }
  bool grouped() const { return is_grouped(op); }
  // Weight and bias are per channel (shape[1]) rather than per element of a row.
  bool per_channel_params() const { return grouped() || op == Op::channel_rms_norm; }
  // channel_rms_norm: a segment's elements lie `spatial` apart, not next to each other.
  bool strided_segments() const { return op == Op::channel_rms_norm; }
  // add_rms_norm reads a residual and writes s = x + residual besides y.
  bool has_residual() const { return op == Op::add_rms_norm; }
  // add_rms_norm_backward reads ds_out, the gradient flowing into s, and adds it to dx.
  bool has_sum_gradient() const { return op == Op::add_rms_norm_backward; }
  bool channels_last() const { return layout == Layout::nhwc; }
  // float32, contiguous, with weight and bias whenever affine: the format normbench's first
  // kernels were written for (and all the registry hands a variant that declares nothing else).
  bool is_classic() const {
    return dtype == DType::float32 && param_dtype == DType::float32 && !channels_last() &&
           has_bias == affine;
  }

  // Index into weight/bias of element `i` of x, in the logical order.
  int64_t param_index(int64_t i) const {
    return per_channel_params() ? (i / spatial) % channels : i % segment_size;
  }
  // Minimum bytes a kernel must move: each input read once, each output written once
  // (kernels/tensor_roles.hpp says which tensors a problem reads and writes).
  int64_t min_bytes() const { return read_bytes() + write_bytes(); }
  int64_t read_bytes() const;
  int64_t write_bytes() const;
};

// What a problem needs besides op and geometry; the defaults are the classic float32 problem.
struct ProblemFormat {
  DType dtype = DType::float32;
  DType param_dtype = DType::float32;
  Layout layout = Layout::nchw;
  bool has_bias = true;  // ignored without affine and for the RMSNorm ops
};

// Fills the derived fields from op, shape, normalized_shape and groups (both unused by
// channel_rms_norm, whose segments are shape[1]). Assumes they were validated (the config
// parser does that and names the offending JSON path).
ProblemShape make_problem_shape(Op op, std::vector<int64_t> shape,
                                std::vector<int64_t> normalized_shape, int64_t groups, double eps,
                                double scale, bool affine, const ProblemFormat& format = {});

}  // namespace normbench
