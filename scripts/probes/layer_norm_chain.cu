// Where a decode LayerNorm's time goes beyond its data movement: decode_floor.cu's skeleton
// (x, weight and bias loaded, one word of each vector summed over the block, y stored; two
// vectors a thread, as normbench's kernel) with LayerNorm's steps added one at a time, beside
// normbench's own row kernel for the same rows (row_kernel.cuh: the shipped plan and hints), in
// the same process and conditions (cold and warm, as normbench times them). decode.json's
// LayerNorms of 8192 at 128 rows and of 4096 at 512 rows run 0.5-0.7 us above that skeleton where
// RMSNorm runs 0.1-0.35 above its own (decode-ties.txt); the steps:
//   sums      the real sums of x and x^2 (no shift) and their pair reduction, rstd from them;
//   shift     the same sums of d = x - x[row's first element], loaded as the kernel loads it;
//   output    y = ((x - shift) - mean) * rstd * weight + bias, rounded to bfloat16;
//   guard     the kernel's test of the one-pass variance and the exact second pass behind it
//             (never taken on these values): the whole of normbench's LayerNorm.
// Each step is also timed without the shift (d = x), the form a kernel would take if the guard
// alone kept the one-pass variance honest. With the parameters loaded after the statistics
// instead ("late"), as the shipped plan does beyond two blocks an SM (512 rows).
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -o layer_norm_chain scripts/probes/layer_norm_chain.cu \
//     kernels/families/wide_rows_plan.cpp kernels/problem_shape.cpp kernels/tensor_roles.cpp \
//     kernels/registry.cpp
//   ./layer_norm_chain
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "probe_support.cuh"
#include "row_kernel.cuh"

namespace {

enum Step : int { kSkeleton = 0, kSums = 1, kOutput = 2, kGuard = 3 };

__device__ __forceinline__ void widen(unsigned w, float& lo, float& hi) {
  lo = __uint_as_float(w << 16);
  hi = __uint_as_float(w & 0xffff0000u);
}
__device__ __forceinline__ unsigned narrow(float lo, float hi) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&h);
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// One bfloat16 row a block, kVectors 16-byte vectors a thread; params = weight then bias.
template <int kVectors, int kStep, bool kShift, bool kLateParams>
__global__ void __launch_bounds__(512) ln_chain(const uint4* x, const uint4* params, uint4* y,
                                                int row_vectors, float inv_n, float eps) {
  __shared__ float partial[32];
  __shared__ float2 pair_partial[32];
  const int64_t row = int64_t{blockIdx.x} * row_vectors;
  const auto at = [&](int j) { return static_cast<int>(threadIdx.x) + j * blockDim.x; };
  uint4 v[kVectors], w[kVectors], b[kVectors];
  const auto load_params = [&] {
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      w[j] = at(j) < row_vectors ? __ldg(params + at(j)) : make_uint4(0, 0, 0, 0);
      b[j] = at(j) < row_vectors ? __ldg(params + row_vectors + at(j)) : make_uint4(0, 0, 0, 0);
    }
  };
  if constexpr (!kLateParams) load_params();
#pragma unroll
  for (int j = 0; j < kVectors; ++j)
    v[j] = at(j) < row_vectors ? x[row + at(j)] : make_uint4(0, 0, 0, 0);

  float shift = 0.0f;
  if constexpr (kShift && kStep >= kSums)
    shift = __uint_as_float(
        static_cast<unsigned>(__ldg(reinterpret_cast<const unsigned short*>(x + row))) << 16);
  float mean = 0.0f, rstd = 0.0f;
  if constexpr (kStep == kSkeleton) {
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < kVectors; ++j) s += __uint_as_float(v[j].x & 0x3fffffffu);
    s = warp_sum(s);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
    __syncthreads();
    rstd = warp_sum(threadIdx.x % 32 < blockDim.x / 32 ? partial[threadIdx.x % 32] : 0.0f);
  } else {
    float total = 0.0f, squares = 0.0f;
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      if (at(j) >= row_vectors) continue;
      const unsigned words[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        float lo, hi;
        widen(words[k], lo, hi);
        const float d0 = lo - shift, d1 = hi - shift;
        total += d0;
        total += d1;
        squares = fmaf(d0, d0, squares);
        squares = fmaf(d1, d1, squares);
      }
    }
    total = warp_sum(total);
    squares = warp_sum(squares);
    if (threadIdx.x % 32 == 0) pair_partial[threadIdx.x / 32] = make_float2(total, squares);
    __syncthreads();
    const bool warp_exists = threadIdx.x % 32 < blockDim.x / 32;
    total = warp_sum(warp_exists ? pair_partial[threadIdx.x % 32].x : 0.0f);
    squares = warp_sum(warp_exists ? pair_partial[threadIdx.x % 32].y : 0.0f);
    mean = total * inv_n;
    float variance = squares * inv_n - mean * mean;
    if constexpr (kStep >= kGuard) {
      if (!(mean * mean < 16.0f * variance)) {  // the exact second pass (not taken here)
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < kVectors; ++j) {
          if (at(j) >= row_vectors) continue;
          const unsigned words[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
#pragma unroll
          for (int k = 0; k < 4; ++k) {
            float lo, hi;
            widen(words[k], lo, hi);
            const float d0 = (lo - shift) - mean, d1 = (hi - shift) - mean;
            s = fmaf(d0, d0, s);
            s = fmaf(d1, d1, s);
          }
        }
        s = warp_sum(s);
        if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
        __syncthreads();
        variance =
            warp_sum(threadIdx.x % 32 < blockDim.x / 32 ? partial[threadIdx.x % 32] : 0.0f) * inv_n;
      }
    }
    rstd = rsqrtf(variance + eps);
  }
  if constexpr (kLateParams) load_params();

#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    if (at(j) >= row_vectors) continue;
    uint4 out;
    if constexpr (kStep >= kOutput) {
      const unsigned in[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
      const unsigned wt[4] = {w[j].x, w[j].y, w[j].z, w[j].w};
      const unsigned bs[4] = {b[j].x, b[j].y, b[j].z, b[j].w};
      unsigned o[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        float e0, e1, w0, w1, b0, b1;
        widen(in[k], e0, e1);
        widen(wt[k], w0, w1);
        widen(bs[k], b0, b1);
        o[k] = narrow(fmaf(((e0 - shift) - mean) * rstd, w0, b0),
                      fmaf(((e1 - shift) - mean) * rstd, w1, b1));
      }
      out = make_uint4(o[0], o[1], o[2], o[3]);
    } else {
      out = make_uint4(v[j].x ^ __float_as_uint(rstd), v[j].y ^ w[j].y, v[j].z ^ b[j].z,
                       v[j].w ^ __float_as_uint(mean));
    }
    y[row + at(j)] = out;
  }
}

}  // namespace

int main() {
  const int64_t max_vectors = int64_t{512} * 8192 * 2 / 16;
  uint4 *x, *y, *params;
  CHECK(cudaMalloc(&x, max_vectors * 16));
  CHECK(cudaMalloc(&y, max_vectors * 16));
  CHECK(cudaMalloc(&params, 2 * 8192 * 2));
  fill_values<<<1024, 256>>>(x, max_vectors);
  fill_values<<<8, 256>>>(params, 2 * 8192 * 2 / 16);
  CHECK(cudaDeviceSynchronize());
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);
  const int sms = sm_count();

  std::vector<Case> cases = {latency_floor_case(x, y)};
  struct Shape {
    int rows, hidden;
  };
  for (const Shape shape : {Shape{1, 4096}, Shape{128, 8192}, Shape{512, 4096}}) {
    const int rows = shape.rows, hidden = shape.hidden, row_vectors = hidden / 8;
    const int threads = row_vectors / 2;
    const float inv_n = 1.0f / static_cast<float>(hidden);
    const std::string name = std::to_string(rows) + " x " + std::to_string(hidden) + ": ";
    const auto add = [&](const std::string& step, auto kernel) {
      cases.push_back({name + step, [=](cudaStream_t s) {
                         kernel<<<rows, threads, 0, s>>>(x, params, y, row_vectors, inv_n, 1e-5f);
                       }});
    };
    add("skeleton", ln_chain<2, kSkeleton, false, false>);
    add("+ sums", ln_chain<2, kSums, false, false>);
    add("+ sums, shift", ln_chain<2, kSums, true, false>);
    add("+ output", ln_chain<2, kOutput, false, false>);
    add("+ output, shift", ln_chain<2, kOutput, true, false>);
    add("+ guard", ln_chain<2, kGuard, false, false>);
    add("+ guard, shift (LayerNorm)", ln_chain<2, kGuard, true, false>);
    add("+ guard, shift, late params", ln_chain<2, kGuard, true, true>);
    add("+ guard, late params", ln_chain<2, kGuard, false, true>);
    const normbench::KernelArgs args =
        row_kernel_args(normbench::Op::layer_norm, hidden, x, nullptr, y, nullptr, params);
    cases.push_back(
        {name + "normbench's kernel", row_kernel<kShippedLayerNormLoadsStores>(
                                          normbench::Op::layer_norm, rows, hidden, sms, args)});
  }
  std::printf("median, min and max of 201 event-timed launches (us)\n");
  print_case_timings(timer, cases, 3, 201, 44);
  return 0;
}
