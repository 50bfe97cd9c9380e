#include "kernels/tensor_roles.hpp"

namespace normbench {

const char* input_name(Input input) {
  switch (input) {
    case Input::x:
      return "x";
    case Input::residual:
      return "residual";
    case Input::weight:
      return "weight";
    case Input::bias:
      return "bias";
    case Input::dy:
      return "dy";
    case Input::ds_out:
      return "ds_out";
    case Input::mean:
      return "mean";
    case Input::rstd:
      return "rstd";
  }
  return "unknown";
}

const char* output_name(Output output) {
  switch (output) {
    case Output::y:
      return "y";
    case Output::sum:
      return "s";
    case Output::dx:
      return "dx";
    case Output::grad_weight:
      return "dweight";
    case Output::grad_bias:
      return "dbias";
  }
  return "unknown";
}

std::vector<Input> problem_inputs(const ProblemShape& p) {
  std::vector<Input> inputs = {Input::x};
  if (p.has_residual()) inputs.push_back(Input::residual);
  if (p.affine) inputs.push_back(Input::weight);
  // A backward op's has_bias asks for dbias; no gradient depends on the bias's values.
  if (p.has_bias && !p.is_backward()) inputs.push_back(Input::bias);
  if (p.is_backward()) {
    inputs.push_back(Input::dy);
    if (p.has_sum_gradient()) inputs.push_back(Input::ds_out);
    if (p.centered()) inputs.push_back(Input::mean);
    inputs.push_back(Input::rstd);
  }
  return inputs;
}

std::vector<Output> problem_outputs(const ProblemShape& p) {
  if (!p.is_backward()) {
    if (p.has_residual()) return {Output::y, Output::sum};
    return {Output::y};
  }
  std::vector<Output> outputs = {Output::dx};
  if (p.affine) outputs.push_back(Output::grad_weight);
  if (p.has_bias) outputs.push_back(Output::grad_bias);
  return outputs;
}

TensorKind tensor_kind(Input input) {
  switch (input) {
    case Input::weight:
    case Input::bias:
      return TensorKind::params;
    case Input::mean:
    case Input::rstd:
      return TensorKind::statistics;
    default:
      return TensorKind::data;
  }
}

TensorKind tensor_kind(Output output) {
  return output == Output::grad_weight || output == Output::grad_bias ? TensorKind::params
                                                                      : TensorKind::data;
}

int64_t tensor_elements(const ProblemShape& p, TensorKind kind) {
  switch (kind) {
    case TensorKind::data:
      return p.num_elements;
    case TensorKind::params:
      return p.param_size;
    case TensorKind::statistics:
      return p.num_segments;
  }
  return 0;
}

std::vector<int64_t> param_shape(const ProblemShape& p) {
  if (p.per_channel_params()) return {p.channels};
  return p.normalized_shape;
}

std::vector<int64_t> tensor_shape(const ProblemShape& p, TensorKind kind) {
  switch (kind) {
    case TensorKind::data:
      return p.shape;
    case TensorKind::params:
      return param_shape(p);
    case TensorKind::statistics:
      break;
  }
  if (p.grouped()) return {p.shape.at(0), p.groups};
  if (p.strided_segments()) return {p.num_segments};
  // The rows: the dims before normalized_shape (one row when it is the whole shape).
  const auto leading = static_cast<long>(p.shape.size() - p.normalized_shape.size());
  std::vector<int64_t> rows(p.shape.begin(), p.shape.begin() + leading);
  if (rows.empty()) rows.push_back(1);
  return rows;
}

DType tensor_dtype(const ProblemShape& p, TensorKind kind) {
  switch (kind) {
    case TensorKind::data:
      return p.dtype;
    case TensorKind::params:
      return p.param_dtype;
    case TensorKind::statistics:
      return DType::float32;
  }
  return DType::float32;
}

bool tensor_channels_last(const ProblemShape& p, TensorKind kind) {
  return kind == TensorKind::data && p.channels_last();
}

int64_t reduction_terms(const ProblemShape& p) {
  return p.param_size > 0 ? p.num_elements / p.param_size : 0;
}

}  // namespace normbench
