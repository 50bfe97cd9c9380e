"""A KernelBench-style LayerNorm submission (the format of KernelBench level 1, problem 40:
Model is the reference, ModelNew the candidate with its own CUDA kernel built by
torch.utils.cpp_extension.load_inline). Evaluate it on normbench's problems:

    build/normbench run --config configs/kernelbench.json --problem A_layer_norm \
        --kernelbench examples/kernelbench/layer_norm_submission.py --torch

normbench builds ModelNew(normalized_shape=...) from each layer_norm problem in its device
worker, gives it normbench's weight and bias as its parameters, and verifies and times it as
its own kernels."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <ATen/cuda/CUDAContext.h>
#include <torch/extension.h>

constexpr int kThreads = 256;

__device__ double block_sum(double v, double* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  double total = 0.0;
  for (int w = 0; w < kThreads / 32; ++w) total += scratch[w];
  __syncthreads();
  return total;
}

// One block per row: mean and variance in double, then the affine normalization.
__global__ void layer_norm_rows(const float* x, const float* w, const float* b, float* y,
                                int64_t row, double eps) {
  __shared__ double scratch[kThreads / 32];
  const float* xr = x + blockIdx.x * row;
  float* yr = y + blockIdx.x * row;
  double sum = 0.0;
  for (int64_t i = threadIdx.x; i < row; i += kThreads) sum += xr[i];
  const double mean = block_sum(sum, scratch) / row;
  double squares = 0.0;
  for (int64_t i = threadIdx.x; i < row; i += kThreads) {
    const double d = xr[i] - mean;
    squares += d * d;
  }
  const double rstd = rsqrt(block_sum(squares, scratch) / row + eps);
  for (int64_t i = threadIdx.x; i < row; i += kThreads)
    yr[i] = static_cast<float>((xr[i] - mean) * rstd) * w[i] + b[i];
}

torch::Tensor layer_norm_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b, double eps) {
  auto y = torch::empty_like(x);
  const int64_t row = w.numel();
  const int64_t rows = x.numel() / row;
  layer_norm_rows<<<rows, kThreads, 0, at::cuda::getCurrentCUDAStream()>>>(
      x.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(), y.data_ptr<float>(), row,
      eps);
  return y;
}
"""

cpp_source = "torch::Tensor layer_norm_forward(torch::Tensor x, torch::Tensor w, torch::Tensor b, double eps);"

layer_norm = load_inline(name="normbench_example_layer_norm", cpp_sources=cpp_source,
                         cuda_sources=cuda_source, functions=["layer_norm_forward"], verbose=False)


class Model(nn.Module):
    """KernelBench's reference: torch.nn.LayerNorm."""

    def __init__(self, normalized_shape: tuple):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)

    def forward(self, x):
        return self.ln(x)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))
        self.eps = 1e-5

    def forward(self, x):
        return layer_norm.layer_norm_forward(x.contiguous(), self.weight, self.bias, self.eps)


batch_size, features, dim1, dim2 = 16, 64, 256, 256


def get_inputs():
    return [torch.randn(batch_size, features, dim1, dim2)]


def get_init_inputs():
    return [(features, dim1, dim2)]
