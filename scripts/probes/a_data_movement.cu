// Problem A's data movement without statistics (y = x * weight + bias over 16 rows of 4M
// float32), in several access orders and cache policies: can weight and bias (32 MB) stay in
// the 50 MB L2 while x and y stream through it, as a row-by-row LayerNorm would need?
// Not part of normbench: a probe for kernels/NOTES.md. Each variant is timed with CUDA events
// after evicting L2 (median of 15 launches); `once` runs each variant one time, for ncu:
//
//   nvcc -O3 -arch=sm_90 -o a_data_movement scripts/probes/a_data_movement.cu
//   ./a_data_movement
//   ncu --clock-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,\
//       dram__bytes_write.sum,lts__t_sector_hit_rate.pct ./a_data_movement once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "probe_check.cuh"

namespace {
constexpr int64_t kRows = 16, kCols = int64_t{1} << 22, kVecs = kCols / 4;

__device__ __forceinline__ float4 load_evict_last(const float4* p) {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  float4 v;
  asm volatile("ld.global.nc.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p), "l"(policy));
  return v;
}
__device__ __forceinline__ float4 fma4(float4 x, float4 w, float4 b) {
  return make_float4(fmaf(x.x, w.x, b.x), fmaf(x.y, w.y, b.y), fmaf(x.z, w.z, b.z),
                     fmaf(x.w, w.w, b.w));
}

// Row-major over all elements, one float4 per thread (the order of a row-by-row kernel).
// kHints: 0 none; 1 x evict-first loads and streaming y stores; 2 = 1 + weight/bias evict-last.
template <int kHints>
__global__ void flat(const float4* x, const float4* w, const float4* b, float4* y) {
  const int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const int64_t c = i % kVecs;
  const float4 xv = kHints ? __ldcs(x + i) : x[i];
  const float4 wv = kHints == 2 ? load_evict_last(w + c) : __ldg(w + c);
  const float4 bv = kHints == 2 ? load_evict_last(b + c) : __ldg(b + c);
  if (kHints)
    __stcs(y + i, fma4(xv, wv, bv));
  else
    y[i] = fma4(xv, wv, bv);
}

// Each thread takes one column float4 and kRowsAtOnce rows: weight and bias loaded once per
// kRowsAtOnce rows (a LayerNorm holding that many rows' statistics could do this).
template <int kRowsAtOnce>
__global__ void rows_at_once(const float4* x, const float4* w, const float4* b, float4* y) {
  const int64_t i =
      int64_t{blockIdx.x} * blockDim.x + threadIdx.x;  // over kRows/kRowsAtOnce * kVecs
  const int64_t c = i % kVecs, r0 = (i / kVecs) * kRowsAtOnce;
  const float4 wv = __ldg(w + c), bv = __ldg(b + c);
#pragma unroll
  for (int r = 0; r < kRowsAtOnce; ++r) {
    const int64_t at = (r0 + r) * kVecs + c;
    __stcs(y + at, fma4(__ldcs(x + at), wv, bv));
  }
}

// A persistent grid: block k owns a contiguous column slice and walks the rows in order.
__global__ void column_slices(const float4* x, const float4* w, const float4* b, float4* y) {
  const int64_t per_block = (kVecs + gridDim.x - 1) / gridDim.x;
  const int64_t first = blockIdx.x * per_block, last = min(first + per_block, kVecs);
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = first + threadIdx.x; c < last; c += blockDim.x) {
      const int64_t at = r * kVecs + c;
      __stcs(y + at, fma4(__ldcs(x + at), __ldg(w + c), __ldg(b + c)));
    }
}

__global__ void touch(float4* p, int64_t n) {  // evicts L2: writes a buffer larger than it
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x)
    p[i] = make_float4(0, 0, 0, 0);
}
}  // namespace

int main(int argc, char** argv) {
  const bool once = argc > 1 && std::strcmp(argv[1], "once") == 0;
  float4 *x, *w, *b, *y, *junk;
  const int64_t junk_vecs = (int64_t{256} << 20) / 16;
  CHECK(cudaMalloc(&x, kRows * kCols * 4));
  CHECK(cudaMalloc(&y, kRows * kCols * 4));
  CHECK(cudaMalloc(&w, kCols * 4));
  CHECK(cudaMalloc(&b, kCols * 4));
  CHECK(cudaMalloc(&junk, junk_vecs * 16));
  CHECK(cudaMemset(x, 0, kRows * kCols * 4));
  CHECK(cudaMemset(w, 0, kCols * 4));
  CHECK(cudaMemset(b, 0, kCols * 4));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  struct Variant {
    const char* name;
    void (*launch)(const float4*, const float4*, const float4*, float4*, int);
  };
  const Variant variants[] = {
      {"flat, no hints", [](const float4* x, const float4* w, const float4* b, float4* y,
                            int) { flat<0><<<kRows * kVecs / 256, 256>>>(x, w, b, y); }},
      {"flat, x evict-first, y streaming",
       [](const float4* x, const float4* w, const float4* b, float4* y, int) {
         flat<1><<<kRows * kVecs / 256, 256>>>(x, w, b, y);
       }},
      {"flat, + weight/bias evict-last",
       [](const float4* x, const float4* w, const float4* b, float4* y, int) {
         flat<2><<<kRows * kVecs / 256, 256>>>(x, w, b, y);
       }},
      {"2 rows per weight/bias load",
       [](const float4* x, const float4* w, const float4* b, float4* y, int) {
         rows_at_once<2><<<kRows / 2 * kVecs / 256, 256>>>(x, w, b, y);
       }},
      {"4 rows per weight/bias load",
       [](const float4* x, const float4* w, const float4* b, float4* y, int) {
         rows_at_once<4><<<kRows / 4 * kVecs / 256, 256>>>(x, w, b, y);
       }},
      {"16 rows per weight/bias load",
       [](const float4* x, const float4* w, const float4* b, float4* y, int) {
         rows_at_once<16><<<kRows / 16 * kVecs / 256, 256>>>(x, w, b, y);
       }},
      {"column slice per block (2 x SMs blocks of 1024)",
       [](const float4* x, const float4* w, const float4* b, float4* y, int sms) {
         column_slices<<<2 * sms, 1024>>>(x, w, b, y);
       }},
  };
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (const Variant& v : variants) {
    std::vector<float> ms;
    for (int rep = 0; rep < (once ? 1 : 15); ++rep) {
      touch<<<4 * sms, 1024>>>(junk, junk_vecs);
      CHECK(cudaEventRecord(start));
      v.launch(x, w, b, y, sms);
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      CHECK(cudaGetLastError());
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, start, stop));
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-50s median %.4f ms  min %.4f  max %.4f\n", v.name, ms[ms.size() / 2], ms.front(),
                ms.back());
  }
  return 0;
}
