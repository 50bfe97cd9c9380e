// What a decode RMSNorm's chain costs beyond its data movement: one bfloat16 row of 4096 (and 32),
// the skeleton of decode_floor.cu (x and the weight loaded, one word of each vector summed over the
// block, y stored; 256 threads, 2 vectors each, as normbench's kernel) with the steps of a real
// RMSNorm added one at a time (the sum of squares, the rsqrt, the output's multiplies and
// rounding), beside normbench's wide_rows kernel with the hints its plan gives these rows (14:
// evict-last loads, evict-first stores, early weight) and without the early weight (10, 0), in
// the same process and conditions (cold and warm, as normbench times them).
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -o rms_chain scripts/probes/rms_chain.cu
//   ./rms_chain
#include "kernels/families/wide_rows.cuh"
#include "probe_support.cuh"

namespace {
using namespace normbench::kernels;
using T = __nv_bfloat16;

// kLevel 0: the skeleton; 1: + the sum of squares; 2: + the rsqrt; 3: + the output (a whole
// RMSNorm).
template <int kVectors, int kLevel>
__global__ void __launch_bounds__(512)
    skel(const uint4* x, const uint4* w, uint4* y, int row_vectors, float eps) {
  __shared__ float partial[32];
  const int64_t row = int64_t{blockIdx.x} * row_vectors;
  uint4 v[kVectors], p[kVectors];
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    const int i = threadIdx.x + j * blockDim.x;
    v[j] = i < row_vectors ? x[row + i] : make_uint4(0, 0, 0, 0);
    p[j] = i < row_vectors ? __ldg(w + i) : make_uint4(0, 0, 0, 0);
  }
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    if constexpr (kLevel >= 1) {  // the real sum of squares
      const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&v[j]);
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const float2 f = __bfloat1622float2(h[k]);
        s = fmaf(f.x, f.x, s);
        s = fmaf(f.y, f.y, s);
      }
    } else
      s += __uint_as_float(v[j].x & 0x3fffffffu);
  }
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
  __syncthreads();
  s = threadIdx.x % 32 < blockDim.x / 32 ? partial[threadIdx.x % 32] : 0.0f;
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  const float rstd = kLevel >= 2 ? rsqrtf(s * (1.0f / 4096) + eps) : s;
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    const int i = threadIdx.x + j * blockDim.x;
    if (i >= row_vectors) continue;
    uint4 out;
    if constexpr (kLevel >= 3) {  // the real output
      const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&v[j]);
      const __nv_bfloat162* g = reinterpret_cast<const __nv_bfloat162*>(&p[j]);
      __nv_bfloat162* o = reinterpret_cast<__nv_bfloat162*>(&out);
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const float2 f = __bfloat1622float2(h[k]), q = __bfloat1622float2(g[k]);
        o[k] = __floats2bfloat162_rn(f.x * rstd * q.x, f.y * rstd * q.y);
      }
    } else
      out = make_uint4(v[j].x ^ __float_as_uint(rstd), v[j].y ^ p[j].y, v[j].z, v[j].w);
    y[row + i] = out;
  }
}

}  // namespace

int main() {
  const int hidden = 4096, row_vectors = hidden / 8;
  uint4 *x, *w, *y;
  CHECK(cudaMalloc(&x, 512 * hidden * 2));
  CHECK(cudaMalloc(&y, 512 * hidden * 2));
  CHECK(cudaMalloc(&w, hidden * 2));
  CHECK(cudaMemset(x, 0x3f, 512 * hidden * 2));
  CHECK(cudaMemset(w, 0x3f, hidden * 2));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);
  std::vector<Case> cases;
  for (int rows : {1, 32}) {
    const std::string r = std::to_string(rows) + " rows: ";
    cases.push_back({r + "skeleton", [=](cudaStream_t s) {
                       skel<2, 0><<<rows, 256, 0, s>>>(x, w, y, row_vectors, 1e-5f);
                     }});
    cases.push_back({r + "+ sum of squares", [=](cudaStream_t s) {
                       skel<2, 1><<<rows, 256, 0, s>>>(x, w, y, row_vectors, 1e-5f);
                     }});
    cases.push_back({r + "+ rsqrt", [=](cudaStream_t s) {
                       skel<2, 2><<<rows, 256, 0, s>>>(x, w, y, row_vectors, 1e-5f);
                     }});
    cases.push_back({r + "+ output (a whole RMSNorm)", [=](cudaStream_t s) {
                       skel<2, 3><<<rows, 256, 0, s>>>(x, w, y, row_vectors, 1e-5f);
                     }});
    const WideRowsTensors<T, T> t{reinterpret_cast<const T*>(x), nullptr,
                                  reinterpret_cast<const T*>(w), nullptr,
                                  reinterpret_cast<T*>(y),       nullptr};
    cases.push_back({r + "wide_rows hints 14", [=](cudaStream_t s) {
                       wide_rows_kernel<T, T, 2, Norm::rms, 14, IdentityEpilogue>
                           <<<rows, 256, 0, s>>>(t, IdentityEpilogue{}, row_vectors, 1.0f / hidden,
                                                 1e-5f, 0);
                     }});
    cases.push_back({r + "wide_rows hints 10", [=](cudaStream_t s) {
                       wide_rows_kernel<T, T, 2, Norm::rms, 10, IdentityEpilogue>
                           <<<rows, 256, 0, s>>>(t, IdentityEpilogue{}, row_vectors, 1.0f / hidden,
                                                 1e-5f, 0);
                     }});
    cases.push_back({r + "wide_rows hints 0", [=](cudaStream_t s) {
                       wide_rows_kernel<T, T, 2, Norm::rms, 0, IdentityEpilogue>
                           <<<rows, 256, 0, s>>>(t, IdentityEpilogue{}, row_vectors, 1.0f / hidden,
                                                 1e-5f, 0);
                     }});
  }
  cases.insert(cases.begin(),
               {"one warp, 4 vectors (about the latency floor)",
                [=](cudaStream_t s) { skel<2, 0><<<1, 32, 0, s>>>(x, w, y, 4, 0.f); }});
  print_case_timings(timer, cases, 3, 201, 36);
}
