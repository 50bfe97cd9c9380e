// Whether a GroupNorm over two samples could hide one sample's grid barrier (and the work around
// it) behind the other sample's reads. group_norm.grid_registers reads all of x (both samples,
// each block one sample's share), waits at one grid barrier, then writes y; the DRAM reads stop
// for the barrier and the merge. The skeletons here move SDXL's 21 MB (2 x 320 x 128 x 128
// float16) with one block an SM, 512 threads, x held in registers, and no arithmetic:
//   one pass        each block holds 20 vectors a thread of one sample; a grid barrier; y stored;
//   two stages      each block holds 10 vectors a thread of each sample; sample 0's barrier is
//                   arrived at once its loads have landed and waited for only after sample 1's
//                   loads are issued; sample 0's y is stored while sample 1's loads are in flight;
//                   then sample 1's barrier and y. Sample 1's loads issue either with sample 0's
//                   (at once) or only after sample 0's have landed (after, by a data dependency);
// each with a wait of `work` ns after every barrier (by %globaltimer), standing in for the tail,
// the merge and the coefficients of the real kernel (about 2 us on SDXL fp16 beside the barrier).
// Cold and warm as normbench times them. If two stages are not clearly faster here, with no
// arithmetic and no second merge, a kernel built that way would not be either.
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o sample_pipeline scripts/probes/sample_pipeline.cu
//   ./sample_pipeline
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "probe_support.cuh"

namespace {

constexpr int kThreads = 512;
constexpr int kVectors =
    20;  // a thread's share of both samples: 132 x 512 x 20 x 16 bytes >= 21 MB
constexpr int kHalf = kVectors / 2;

__device__ __forceinline__ void wait_ns(unsigned long long ns) {
  if (ns == 0) return;
  const unsigned long long begin = globaltimer_now();
  while (globaltimer_now() - begin < ns) {
  }
}

// Vectors begin + threadIdx.x + j * kThreads, j < kN, below end, into v; returns a fold of them
// that a store depends on (so that every load is waited for where it is used).
template <int kN>
__device__ __forceinline__ unsigned load_share(const uint4* x, int64_t begin, int64_t end,
                                               uint4 (&v)[kN]) {
#pragma unroll
  for (int j = 0; j < kN; ++j) {
    const int64_t i = begin + threadIdx.x + int64_t{j} * kThreads;
    v[j] = i < end ? x[i] : make_uint4(0, 0, 0, 0);
  }
  unsigned mix = 0u;
#pragma unroll
  for (int j = 0; j < kN; ++j) mix ^= v[j].x;
  return mix;
}

template <int kN>
__device__ __forceinline__ void store_share(uint4* y, int64_t begin, int64_t end,
                                            const uint4 (&v)[kN], unsigned mix) {
#pragma unroll
  for (int j = 0; j < kN; ++j) {
    const int64_t i = begin + threadIdx.x + int64_t{j} * kThreads;
    if (i < end) y[i] = make_uint4(v[j].x ^ (mix | 1u), v[j].y, v[j].z, v[j].w);
  }
}

// Block b holds vectors b * kVectors * kThreads onwards: blocks 0..65 sample 0, the rest sample 1.
__global__ void __launch_bounds__(kThreads, 1)
    one_pass(const uint4* x, uint4* y, int64_t count, unsigned long long work) {
  const int64_t begin = int64_t{blockIdx.x} * kVectors * kThreads;
  uint4 v[kVectors];
  const unsigned mix = load_share(x, begin, count, v);
  if (mix == 0x9e3779b9u) probe_sink = mix;
  cooperative_groups::this_grid().sync();
  wait_ns(work);
  store_share(y, begin, count, v, mix);
}

// Block b holds vectors b * kHalf * kThreads onwards of each sample (`sample` vectors each).
template <bool kAfter>
__global__ void __launch_bounds__(kThreads, 1)
    two_stages(const uint4* x, uint4* y, int64_t sample, unsigned long long work) {
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const int64_t begin = int64_t{blockIdx.x} * kHalf * kThreads;
  uint4 v0[kHalf], v1[kHalf];
  unsigned mix1 = 0u;
  if constexpr (!kAfter) mix1 = load_share(x + sample, begin, sample, v1);
  const unsigned mix0 = load_share(x, begin, sample, v0);
  if (mix0 == 0x9e3779b9u) probe_sink = mix0;
  auto token0 = grid.barrier_arrive();
  // After: sample 1's addresses depend on sample 0's data, so its loads issue once that landed.
  if constexpr (kAfter)
    mix1 = load_share(x + sample + (mix0 == 0x9e3779b9u ? 1 : 0), begin, sample, v1);
  grid.barrier_wait(std::move(token0));
  wait_ns(work);
  store_share(y, begin, sample, v0, mix0);
  if (mix1 == 0x9e3779b9u) probe_sink = mix1;
  grid.sync();
  wait_ns(work);
  store_share(y + sample, begin, sample, v1, mix1);
}

template <class... Args>
Case cooperative_case(const std::string& name, void (*kernel)(Args...), int blocks, Args... args) {
  return {name, [=](cudaStream_t s) {
            void* params[] = {const_cast<void*>(static_cast<const void*>(&args))...};
            CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), blocks, kThreads,
                                              params, 0, s));
          }};
}

}  // namespace

int main() {
  const int sms = sm_count();
  const int64_t sample = int64_t{320} * 128 * 128 * 2 / 16;  // vectors of one float16 sample
  const int64_t count = 2 * sample;
  if (int64_t{sms} * kThreads * kHalf < sample) {
    std::printf("%d SMs: too few for 21 MB at %d vectors a thread\n", sms, kVectors);
    return 1;
  }
  const int one_pass_blocks =
      static_cast<int>((count + int64_t{kVectors} * kThreads - 1) / (int64_t{kVectors} * kThreads));
  const int two_stage_blocks =
      static_cast<int>((sample + int64_t{kHalf} * kThreads - 1) / (int64_t{kHalf} * kThreads));
  uint4 *x, *y;
  CHECK(cudaMalloc(&x, count * 16));
  CHECK(cudaMalloc(&y, count * 16));
  CHECK(cudaMemset(x, 0x11, count * 16));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);

  const uint4* cx = x;
  std::vector<Case> cases;
  for (const unsigned long long work : {0ull, 1000ull, 2000ull}) {
    const std::string w = ", work " + std::to_string(work) + " ns";
    cases.push_back(
        cooperative_case("one pass" + w, one_pass, one_pass_blocks, cx, y, count, work));
    cases.push_back(cooperative_case("two stages, sample 1 at once" + w, two_stages<false>,
                                     two_stage_blocks, cx, y, sample, work));
    cases.push_back(cooperative_case("two stages, sample 1 after" + w, two_stages<true>,
                                     two_stage_blocks, cx, y, sample, work));
  }
  std::printf(
      "%d SMs, %d threads a block; one pass on %d blocks, two stages on %d; median, min and max "
      "of 201 event-timed samples (us)\n",
      sms, kThreads, one_pass_blocks, two_stage_blocks);
  print_case_timings(timer, cases, 3, 201, 44);
  return 0;
}
