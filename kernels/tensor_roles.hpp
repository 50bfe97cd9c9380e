// The tensors a problem reads and writes, by role, with their sizes, shapes and element types:
// the one list the harness's shared memory, device buffers, guards, fingerprints, checks and
// tensor dumps walk, so that an op with other tensors changes this file and not each of them.
//
// Three kinds of tensor: data (x's shape, dtype and layout), parameters (param_size elements of
// param_dtype: per element of a row, or per channel) and statistics (one float32 per segment,
// contiguous: the mean and rstd a forward pass saved for its backward).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/problem_shape.hpp"

namespace normbench {

// Inputs: x; add_rms_norm's residual; weight (affine) and bias (has_bias, forward ops only);
// for the backward ops dy (the gradient of y: data), add_rms_norm_backward's ds_out (the
// gradient flowing into its s output: data) and the statistics of x the forward saved, mean
// (LayerNorm, GroupNorm) and rstd, computed by the harness in float64 and rounded once to
// float32, as PyTorch's layer_norm returns them.
enum class Input { x, residual, weight, bias, dy, ds_out, mean, rstd };
inline constexpr int kInputCount = 8;
inline constexpr Input kAllInputs[kInputCount] = {Input::x,    Input::residual, Input::weight,
                                                  Input::bias, Input::dy,       Input::ds_out,
                                                  Input::mean, Input::rstd};

// Outputs: y of a forward op; s = x + residual of add_rms_norm; for a backward op dx (data, in
// KernelArgs::y), dweight (affine) and dbias (has_bias), both parameters.
enum class Output { y, sum, dx, grad_weight, grad_bias };
inline constexpr int kOutputCount = 5;
inline constexpr Output kAllOutputs[kOutputCount] = {Output::y, Output::sum, Output::dx,
                                                     Output::grad_weight, Output::grad_bias};

enum class TensorKind { data, params, statistics };

const char* input_name(Input input);     // "x", "residual", ..., "dy", "ds_out", "mean", "rstd"
const char* output_name(Output output);  // "y", "s", "dx", "dweight", "dbias"

// The problem's inputs and outputs, in the order above.
std::vector<Input> problem_inputs(const ProblemShape& problem);
std::vector<Output> problem_outputs(const ProblemShape& problem);

TensorKind tensor_kind(Input input);
TensorKind tensor_kind(Output output);
// Elements of a tensor of this kind.
int64_t tensor_elements(const ProblemShape& problem, TensorKind kind);
// Its logical shape: x's; the weight's (normalized_shape, or (C) per channel); the statistics'
// (the dims before normalized_shape, or (N, groups)), as PyTorch's forward returns them.
std::vector<int64_t> tensor_shape(const ProblemShape& problem, TensorKind kind);
DType tensor_dtype(const ProblemShape& problem, TensorKind kind);
// Stored channels-last: a channels-last GroupNorm's data.
bool tensor_channels_last(const ProblemShape& problem, TensorKind kind);

// The shape of weight and of bias (tensor_shape of the parameters).
std::vector<int64_t> param_shape(const ProblemShape& problem);

// Parameter outputs are sums over the data: dweight[j] and dbias[j] add one term per row (per
// (sample, position) of channel j for GroupNorm). How many terms each element adds.
int64_t reduction_terms(const ProblemShape& problem);

}  // namespace normbench
