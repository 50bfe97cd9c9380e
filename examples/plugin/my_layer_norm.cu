// A user's LayerNorm kernel as a normbench plugin: one block of 256 threads per row, the row's
// mean and variance reduced in double through warp shuffles, then the normalization. Supports
// every float32 layer_norm shape with weight and bias together or neither, and declines the
// rest (normbench hands a plugin every problem of its op: bfloat16, float16, bias-free ones
// too). No workspace. Built by examples/plugin/CMakeLists.txt.
#include <cuda_runtime.h>
#include <normbench/plugin.h>

#include <cstdint>
#include <cstdio>

namespace {

constexpr int kThreads = 256;

__device__ double block_sum(double v, double* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  double total = 0.0;
  for (int w = 0; w < kThreads / 32; ++w) total += scratch[w];
  __syncthreads();  // scratch is reused by the next sum
  return total;
}

__global__ void layer_norm_rows(const float* x, const float* weight, const float* bias, float* y,
                                int64_t row_size, double eps) {
  __shared__ double scratch[kThreads / 32];
  const float* xr = x + blockIdx.x * row_size;
  float* yr = y + blockIdx.x * row_size;
  double sum = 0.0;
  for (int64_t i = threadIdx.x; i < row_size; i += kThreads) sum += xr[i];
  const double mean = block_sum(sum, scratch) / static_cast<double>(row_size);
  double squares = 0.0;
  for (int64_t i = threadIdx.x; i < row_size; i += kThreads) {
    const double d = xr[i] - mean;
    squares += d * d;
  }
  const double rstd = rsqrt(block_sum(squares, scratch) / static_cast<double>(row_size) + eps);
  for (int64_t i = threadIdx.x; i < row_size; i += kThreads) {
    float v = static_cast<float>((xr[i] - mean) * rstd);
    if (weight) v = v * weight[i] + bias[i];
    yr[i] = v;
  }
}

int unsupported(const nb_problem* p, const nb_device*, char* reason, size_t size) {
  if (p->dtype != NB_DTYPE_FLOAT32 || p->param_dtype != NB_DTYPE_FLOAT32) {
    snprintf(reason, size, "float32 only");
    return 1;
  }
  if (p->affine && !p->has_bias) {
    snprintf(reason, size, "a weight without a bias");
    return 1;
  }
  if (p->num_segments > 0x7fffffff) {
    snprintf(reason, size, "more than 2^31-1 rows (one block each)");
    return 1;
  }
  return 0;
}

int launch(const nb_problem* p, const nb_device*, const nb_args* a) {
  layer_norm_rows<<<static_cast<unsigned>(p->num_segments), kThreads, 0,
                    static_cast<cudaStream_t>(a->stream)>>>(
      static_cast<const float*>(a->x), static_cast<const float*>(a->weight),
      static_cast<const float*>(a->bias), static_cast<float*>(a->y), p->segment_size, p->eps);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

NORMBENCH_PLUGIN_ABI_VERSION_FUNCTION

NORMBENCH_PLUGIN_EXPORT int normbench_plugin_register(const nb_registrar* registrar) {
  const nb_kernel kernel = {NB_OP_LAYER_NORM,
                            "layer_norm.example_block_per_row",
                            "examples/plugin: a block per row, double warp-shuffle reductions",
                            unsupported,
                            nullptr,
                            launch};
  return registrar->add_kernel(registrar->context, &kernel);
}
