// What a launch of one block an SM costs under normbench's timing as its dynamic shared memory
// grows, and how far apart its blocks start: group_norm.grid_registers on SDXL's 2 x 320 x 128 x
// 128 float16 holds part of x in about 140 KB of shared memory a block, and its phase timings
// (kernels/NOTES.md) put its blocks' starts up to 3 us apart, against 0.6 us on the plans that
// use little shared memory. A kernel of 132 blocks x 384 threads that only records each block's
// start (%globaltimer) is launched with 0-200 KB of dynamic shared memory:
//   after normbench's eviction (cold) or its 50 us spin (warm), neither of which uses shared
//   memory, so the SMs may have to change their split between L1 and shared memory;
//   and after a kernel that itself took 200 KB of shared memory on every SM (primed).
// Each line: the event-timed median, min and max of the launch, and the median over samples of
// the spread of its blocks' starts (last start - first start).
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o shared_carveout scripts/probes/shared_carveout.cu
//   ./shared_carveout
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "probe_support.cuh"

namespace {

constexpr int kThreads = 384;
constexpr int kSamples = 101;

__global__ void __launch_bounds__(kThreads, 1)
    record_start(unsigned long long* starts, size_t shared_bytes) {
  extern __shared__ unsigned char held[];
  if (threadIdx.x == 0) {
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    starts[blockIdx.x] = now;
    if (shared_bytes > 0) held[0] = 1;  // the shared memory is the launch's, used or not
  }
}

// One block an SM holding `bytes` of shared memory, so that every SM is split for it.
__global__ void __launch_bounds__(32, 1) take_shared() {
  extern __shared__ unsigned char held[];
  if (threadIdx.x == 0) held[0] = 1;
}

}  // namespace

int main() {
  int device = 0, sms = 0, max_shared = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  CHECK(
      cudaFuncSetAttribute(record_start, cudaFuncAttributeMaxDynamicSharedMemorySize, max_shared));
  CHECK(cudaFuncSetAttribute(take_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, max_shared));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  const LaunchTimer timer(stream);
  unsigned long long* starts = nullptr;
  CHECK(cudaMalloc(&starts, sizeof(unsigned long long) * sms * kSamples));

  std::printf("%d SMs, %d threads a block, one block an SM; %d samples a line; us\n", sms, kThreads,
              kSamples);
  const int kilobytes[] = {0, 48, 96, 140, 200};
  for (int round = 0; round < 3; ++round) {
    for (const bool cold : {true, false}) {
      for (const bool primed : {false, true}) {
        for (const int kb : kilobytes) {
          const size_t bytes = size_t{1024} * kb;
          int sample = 0;
          const auto run = [&](cudaStream_t s) {
            record_start<<<sms, kThreads, bytes, s>>>(starts + static_cast<size_t>(sms) * sample++,
                                                      bytes);
          };
          const LaunchTimer::Timing t =
              timer.time(run, cold, kSamples,
                         primed ? [&](cudaStream_t s) { take_shared<<<sms, 32, max_shared, s>>>(); }
                                : std::function<void(cudaStream_t)>{});
          CHECK(cudaDeviceSynchronize());
          std::vector<unsigned long long> host(static_cast<size_t>(sms) * kSamples);
          CHECK(cudaMemcpy(host.data(), starts, host.size() * sizeof(host[0]),
                           cudaMemcpyDeviceToHost));
          std::vector<double> spreads;
          for (int i = 0; i < kSamples; ++i) {
            const auto first = host.begin() + static_cast<size_t>(sms) * i;
            const auto [lo, hi] = std::minmax_element(first, first + sms);
            spreads.push_back(static_cast<double>(*hi - *lo) / 1000.0);
          }
          std::sort(spreads.begin(), spreads.end());
          std::printf(
              "round %d  %-4s %-8s %3d KB  median %6.2f  min %6.2f  max %6.2f  start spread "
              "%5.2f\n",
              round, cold ? "cold" : "warm", primed ? "primed" : "", kb, t.median, t.min, t.max,
              spreads[spreads.size() / 2]);
        }
      }
    }
  }
  return 0;
}
