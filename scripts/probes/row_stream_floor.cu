// The data movement of RMSNorm bfloat16 16384 x 8192 (llm.json) without its statistics: read
// every row (16 KB) once, write it once (y = x, or y = x * weight with the weight re-read per
// row as the row kernels do), in the launch shapes and cache policies of normbench's row kernel
// and torch.compile's, and as cudaMemcpy and a grid-stride copy. How fast can any kernel of this
// pattern be on this GPU, statistics aside? Not part of normbench: a probe for kernels/NOTES.md.
// L2 is evicted before each launch as normbench does (a read of twice its size at evict-last
// priority, then the lines discarded); median, min and max of 31 launches timed with events.
//
//   nvcc -O3 -arch=sm_90 -o row_stream_floor scripts/probes/row_stream_floor.cu
//   ./row_stream_floor
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_support.cuh"

namespace {
constexpr int64_t kRows = 16384, kCols = 8192;
constexpr int64_t kRowVecs = kCols * 2 / 16;  // 16-byte vectors per row: 1024
constexpr int64_t kVecs = kRows * kRowVecs;

enum Policy { kPlain = 0, kEvictLastLoads = 1, kStreamLoads = 2, kStreamStores = 4 };

template <int kPolicy>
__device__ __forceinline__ uint4 load(const uint4* p) {
  if constexpr ((kPolicy & kEvictLastLoads) != 0) {
    uint64_t policy;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    uint4 v;
    asm volatile("ld.global.L1::evict_last.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "l"(policy));
    return v;
  } else if constexpr ((kPolicy & kStreamLoads) != 0) {
    return __ldcs(p);
  } else {
    return *p;
  }
}

template <int kPolicy>
__device__ __forceinline__ void store(uint4* p, uint4 v) {
  if constexpr ((kPolicy & kStreamStores) != 0)
    __stcs(p, v);
  else
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
                 "r"(v.w)
                 : "memory");
}

// v * w on 8 bfloat16 pairs, rounded back (the arithmetic of RMSNorm's output, rstd aside).
__device__ __forceinline__ uint4 times(uint4 v, uint4 w) {
  uint32_t* a = reinterpret_cast<uint32_t*>(&v);
  const uint32_t* b = reinterpret_cast<const uint32_t*>(&w);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    __nv_bfloat162 x = *reinterpret_cast<__nv_bfloat162*>(&a[k]);
    const __nv_bfloat162 y = *reinterpret_cast<const __nv_bfloat162*>(&b[k]);
    const float2 f = __bfloat1622float2(x), g = __bfloat1622float2(y);
    x = __floats2bfloat162_rn(f.x * g.x, f.y * g.y);
    a[k] = *reinterpret_cast<uint32_t*>(&x);
  }
  return v;
}

// One block per row; every thread loads its kPer vectors (t, t + threads, ...), then stores
// them (times the weight when kWeight): the shape of normbench's row kernel without statistics.
template <int kPer, int kPolicy, bool kWeight>
__global__ void row_blocks(const uint4* x, const uint4* w, uint4* y) {
  const int64_t row = int64_t{blockIdx.x} * kRowVecs;
  uint4 v[kPer];
#pragma unroll
  for (int j = 0; j < kPer; ++j) v[j] = load<kPolicy>(x + row + threadIdx.x + j * blockDim.x);
#pragma unroll
  for (int j = 0; j < kPer; ++j) {
    const int64_t c = threadIdx.x + j * blockDim.x;
    store<kPolicy>(y + row + c, kWeight ? times(v[j], __ldg(w + c)) : v[j]);
  }
}

// A persistent grid-stride copy, 4 vectors in flight per thread.
__global__ void grid_stride(const uint4* x, uint4* y) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < kVecs; i += 4 * stride) {
    uint4 v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (i + j * stride < kVecs) v[j] = x[i + j * stride];
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (i + j * stride < kVecs) store<kPlain>(y + i + j * stride, v[j]);
  }
}

}  // namespace

int main() {
  uint4 *x, *y, *w;
  int sms = 0, l2 = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const int64_t bytes = kVecs * 16;
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&y, bytes));
  CHECK(cudaMalloc(&w, kRowVecs * 16));
  CHECK(cudaMemset(x, 0x3f, bytes));
  CHECK(cudaMemset(w, 0x3f, kRowVecs * 16));
  const LaunchTimer timer(0);  // the variants launch on the default stream

  struct Variant {
    const char* name;
    void (*launch)(const uint4*, const uint4*, uint4*, int);
  };
  const Variant variants[] = {
      {"cudaMemcpy device to device",
       [](const uint4* x, const uint4*, uint4* y, int) {
         CHECK(cudaMemcpyAsync(y, x, kVecs * 16, cudaMemcpyDeviceToDevice));
       }},
      {"grid-stride copy, 8 x SMs blocks of 256",
       [](const uint4* x, const uint4*, uint4* y, int sms) {
         grid_stride<<<8 * sms, 256>>>(x, y);
       }},
      {"rows 256 x 4, plain", [](const uint4* x, const uint4* w, uint4* y,
                                 int) { row_blocks<4, kPlain, false><<<kRows, 256>>>(x, w, y); }},
      {"rows 256 x 4, evict-first loads and stores",
       [](const uint4* x, const uint4* w, uint4* y, int) {
         row_blocks<4, kStreamLoads | kStreamStores, false><<<kRows, 256>>>(x, w, y);
       }},
      {"rows 256 x 4, evict-last loads, evict-first stores",
       [](const uint4* x, const uint4* w, uint4* y, int) {
         row_blocks<4, kEvictLastLoads | kStreamStores, false><<<kRows, 256>>>(x, w, y);
       }},
      {"rows 256 x 4, the same, y = x * weight",
       [](const uint4* x, const uint4* w, uint4* y, int) {
         row_blocks<4, kEvictLastLoads | kStreamStores, true><<<kRows, 256>>>(x, w, y);
       }},
      {"rows 512 x 2, evict-last loads, plain stores",
       [](const uint4* x, const uint4* w, uint4* y, int) {
         row_blocks<2, kEvictLastLoads, false><<<kRows, 512>>>(x, w, y);
       }},
      {"rows 512 x 2, the same, y = x * weight",
       [](const uint4* x, const uint4* w, uint4* y, int) {
         row_blocks<2, kEvictLastLoads, true><<<kRows, 512>>>(x, w, y);
       }},
      {"rows 128 x 8, evict-last loads, evict-first stores",
       [](const uint4* x, const uint4* w, uint4* y, int) {
         row_blocks<8, kEvictLastLoads | kStreamStores, false><<<kRows, 128>>>(x, w, y);
       }},
  };
  std::printf("%lld x %lld bfloat16: %.1f MB read + %.1f MB written; %d SMs, L2 %d MB\n",
              static_cast<long long>(kRows), static_cast<long long>(kCols), bytes / 1e6,
              bytes / 1e6, sms, l2 >> 20);
  for (int round = 0; round < 2; ++round) {  // two rounds: the spread between them is noise
    for (const Variant& v : variants) {
      const LaunchTimer::Timing t =
          timer.time([&](cudaStream_t) { v.launch(x, w, y, sms); }, true, 31);
      std::printf("round %d  %-52s median %7.1f us  min %7.1f  max %7.1f  (%.0f GB/s)\n", round,
                  v.name, t.median, t.min, t.max, 2 * bytes / (t.median * 1e3));
    }
  }
  return 0;
}
