// What a channels-last GroupNorm of the diffusion shapes cannot go below on this GPU under
// normbench's timing (CUDA events, L2 evicted before each sample): the data movement and the one
// dependency every GroupNorm has (no y of a group before all of its x is summed), without the
// arithmetic. Three skeletons per size of x (bytes of the diffusion.json problems):
//   copy        x to y, one launch: the copy floor;
//   one pass    every block loads its share of x into registers, sums a word of each vector
//               and stores its partial, waits at a grid barrier (all blocks resident, an atomic
//               counter), reads another block's partial and writes y from registers: one read
//               and one write of DRAM and the grid-wide dependency, in one launch (the design
//               of group_norm.grid_tiles);
//   two pass    launch 1 reads x and stores a partial per block; launch 2 reads a partial and x
//               again (from L2 where it fits) and writes y (group_norm.channel_sums' design,
//               less its coefficient launch).
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o group_norm_floor scripts/probes/group_norm_floor.cu
//   ./group_norm_floor
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "probe_support.cuh"

namespace {

constexpr int kThreads = 512;

// The block's sum in thread 0 (a butterfly per warp, then the warps' partials).
__device__ float block_sum(float s) {
  __shared__ float partial[32];
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
  __syncthreads();
  s = 0.0f;
  if (threadIdx.x == 0)
    for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) s += partial[w];
  return s;
}

__global__ void copy_kernel(const uint4* x, uint4* y, int64_t count) {
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x)
    y[i] = x[i];
}

// Vector j of thread t of block b: b * (kVectors * kThreads) + j * kThreads + t (coalesced).
template <int kVectors>
__global__ void __launch_bounds__(kThreads)
    one_pass(const uint4* x, uint4* y, int64_t count, float* sum, unsigned* arrived) {
  const int64_t base = int64_t{blockIdx.x} * kVectors * kThreads + threadIdx.x;
  uint4 v[kVectors];
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    const int64_t i = base + int64_t{j} * kThreads;
    v[j] = i < count ? x[i] : make_uint4(0, 0, 0, 0);
  }
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kVectors; ++j) s += __uint_as_float(v[j].x & 0x3fffffffu);
  s = block_sum(s);
  if (threadIdx.x == 0) sum[blockIdx.x] = s;  // the block's partial, no atomic
  // Grid barrier: the counter (one per case, so one grid size each) only grows; each launch
  // waits for the next multiple of its grid.
  __shared__ unsigned go;
  if (threadIdx.x == 0) {
    __threadfence();
    const unsigned ticket = atomicAdd(arrived, 1u) + 1u;
    const unsigned target = (ticket + gridDim.x - 1) / gridDim.x * gridDim.x;
    unsigned seen;
    unsigned long long begin, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(begin));
    do {
      asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(seen) : "l"(arrived));
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
      if (now - begin > 1000000000ull) __trap();  // not all blocks resident: fail, not hang
    } while (static_cast<int>(seen - target) < 0);
    go = __float_as_uint(*reinterpret_cast<volatile float*>(sum + (blockIdx.x + 1) % gridDim.x));
  }
  __syncthreads();
  const unsigned mix = go | 1u;
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    const int64_t i = base + int64_t{j} * kThreads;
    if (i < count) y[i] = make_uint4(v[j].x ^ mix, v[j].y, v[j].z, v[j].w);
  }
}

__global__ void sum_pass(const uint4* x, int64_t count, float* sum) {
  float s = 0.0f;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x)
    s += __uint_as_float(x[i].x & 0x3fffffffu);
  s = block_sum(s);
  if (threadIdx.x == 0) sum[blockIdx.x] = s;
}
__global__ void write_pass(const uint4* x, uint4* y, int64_t count, const float* sum) {
  const unsigned mix = __float_as_uint(sum[(blockIdx.x + 1) % gridDim.x]) | 1u;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    const uint4 v = x[i];
    y[i] = make_uint4(v.x ^ mix, v.y, v.z, v.w);
  }
}

}  // namespace

int main() {
  const int sms = sm_count();
  const int64_t max_bytes = int64_t{2} * 320 * 128 * 128 * 2;
  uint4 *x, *y;
  float* sum;
  unsigned* arrived;
  CHECK(cudaMalloc(&x, max_bytes));
  CHECK(cudaMalloc(&y, max_bytes));
  CHECK(cudaMalloc(&sum, 4096 * sizeof(float)));  // a partial per block
  constexpr int kCounters = 16;                   // one per one-pass case
  CHECK(cudaMalloc(&arrived, kCounters * sizeof(unsigned)));
  CHECK(cudaMemset(x, 0x11, max_bytes));
  CHECK(cudaMemset(arrived, 0, kCounters * sizeof(unsigned)));
  int counters_used = 0;
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);

  struct Size {
    const char* name;
    int64_t bytes;
  };
  const Size sizes[] = {{"fp16 2x1280x16x16", int64_t{2} * 1280 * 16 * 16 * 2},
                        {"fp16 2x640x32x32", int64_t{2} * 640 * 32 * 32 * 2},
                        {"fp16 2x320x64x64", int64_t{2} * 320 * 64 * 64 * 2},
                        {"bf16 2x640x64x64", int64_t{2} * 640 * 64 * 64 * 2},
                        {"fp16 2x320x128x128", int64_t{2} * 320 * 128 * 128 * 2}};
  std::vector<Case> cases;
  for (const Size& size : sizes) {
    const int64_t count = size.bytes / 16;
    cases.push_back({std::string("copy      ") + size.name, [=](cudaStream_t s) {
                       copy_kernel<<<sms * 4, kThreads, 0, s>>>(x, y, count);
                     }});
    // The fewest vectors a thread whose blocks all fit at once.
    auto add_one_pass = [&](auto vectors) {
      constexpr int kVectors = decltype(vectors)::value;
      int per_sm = 0;
      CHECK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, one_pass<kVectors>, kThreads, 0));
      const int64_t blocks = (count + int64_t{kVectors} * kThreads - 1) / (kVectors * kThreads);
      if (blocks > int64_t{per_sm} * sms) return false;
      unsigned* counter = arrived + counters_used++;
      cases.push_back({std::string("one pass  ") + size.name + " (" + std::to_string(kVectors) +
                           " vectors, " + std::to_string(blocks) + " blocks)",
                       [=](cudaStream_t s) {
                         one_pass<kVectors><<<blocks, kThreads, 0, s>>>(x, y, count, sum, counter);
                       }});
      return true;
    };
    add_one_pass(std::integral_constant<int, 1>{}) ||
        add_one_pass(std::integral_constant<int, 2>{}) ||
        add_one_pass(std::integral_constant<int, 4>{}) ||
        add_one_pass(std::integral_constant<int, 8>{}) ||
        add_one_pass(std::integral_constant<int, 12>{}) ||
        add_one_pass(std::integral_constant<int, 16>{}) ||
        add_one_pass(std::integral_constant<int, 24>{});
    cases.push_back({std::string("two pass  ") + size.name, [=](cudaStream_t s) {
                       sum_pass<<<sms * 4, kThreads, 0, s>>>(x, count, sum);
                       write_pass<<<sms * 4, kThreads, 0, s>>>(x, y, count, sum);
                     }});
  }

  std::printf("%d SMs; cold (L2 evicted); median, min and max of 101 event-timed samples (us)\n",
              sms);
  for (int round = 0; round < 2; ++round) {
    for (const Case& c : cases) {
      const LaunchTimer::Timing t = timer.time(c.run, true, 101);
      std::printf("round %d  %-58s median %6.2f  min %6.2f  max %6.2f\n", round, c.name.c_str(),
                  t.median, t.min, t.max);
    }
  }
  return 0;
}
