// The vocabulary shared by kernels, the reference and the harness: which normalization a
// problem asks for and the geometry a kernel needs to compute it. Host-only, no CUDA.
//
// Every op here normalizes contiguous "segments" of x: a LayerNorm row (the trailing
// normalized dims) or a GroupNorm group (C/G channels times the spatial dims, contiguous in
// NCHW). Weight and bias are indexed per element of a row (LayerNorm) or per channel
// (GroupNorm); `param_index` below is the single definition of that mapping.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace normbench {

enum class Op { layer_norm, group_norm, layer_norm_gelu_scale };

inline constexpr Op kAllOps[] = {Op::layer_norm, Op::group_norm, Op::layer_norm_gelu_scale};

std::string_view op_name(Op op);
std::optional<Op> op_from_name(std::string_view name);
// One line for `normbench list`.
std::string_view op_description(Op op);

// Integer division rounding up: chunks, tiles and blocks needed to cover a count.
inline int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

struct ProblemShape {
  Op op = Op::layer_norm;
  std::vector<int64_t> shape;             // full shape of x (row-major, contiguous)
  std::vector<int64_t> normalized_shape;  // layer_norm ops: trailing dims normalized together
  int64_t groups = 0;                     // group_norm: number of groups

  int64_t num_elements = 0;
  int64_t num_segments = 0;  // rows (layer_norm) or N * groups (group_norm)
  int64_t segment_size = 0;  // elements normalized together
  int64_t channels = 0;      // group_norm: C = shape[1]
  int64_t spatial = 1;       // group_norm: product of shape[2:]
  int64_t param_size = 0;    // elements of weight and of bias

  double eps = 1e-5;
  double scale = 1.0;  // layer_norm_gelu_scale: the output is multiplied by it
  bool affine = true;

  // Index into weight/bias of element `i` of x.
  int64_t param_index(int64_t i) const {
    return op == Op::group_norm ? (i / spatial) % channels : i % segment_size;
  }
  // Minimum bytes a kernel must move: x read once, y written once, weight and bias read once.
  int64_t min_bytes() const { return read_bytes() + write_bytes(); }
  int64_t read_bytes() const {
    return static_cast<int64_t>(sizeof(float)) * (num_elements + (affine ? 2 * param_size : 0));
  }
  int64_t write_bytes() const { return static_cast<int64_t>(sizeof(float)) * num_elements; }
};

// Fills the derived fields from op, shape, normalized_shape and groups. Assumes they were
// validated (the config parser does that and names the offending JSON path).
ProblemShape make_problem_shape(Op op, std::vector<int64_t> shape,
                                std::vector<int64_t> normalized_shape, int64_t groups, double eps,
                                double scale, bool affine);

}  // namespace normbench
