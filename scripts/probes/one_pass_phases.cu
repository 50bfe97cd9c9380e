// How SDXL fp16's one-pass floor (2 x 320 x 128 x 128 float16, 21 MB of x in, 21 MB of y out,
// the shape group_norm.grid_registers misses 20 us on) splits into its phases, each alone, under
// normbench's timing (L2 evicted before each cold sample). Kernels of one block an SM, 512
// threads, 20 16-byte vectors a thread in registers, as the skeleton of cooperative_launch.cu:
//   empty         the launch alone;
//   reads         x into registers, a store that depends on every load, nothing written;
//   writes        y written from registers (values made from the index), nothing read;
//   barrier       the ticket grid barrier alone;
//   one pass      reads, the barrier, writes (the skeleton of every grid_registers kernel);
//   no barrier    reads then writes of the same vectors, each block on its own: the one pass
//                 without its barrier, so that early blocks write while late ones read;
//   copy          a grid-stride copy of x to y (normbench's copy floor's pattern).
// If reads + writes alone come to about the one pass, the one pass pays its phases in series and
// nothing in them is waste; the output phase's floor is the writes' time, against the 5.1 us the
// kernel's warp samples put there (checks/latency-regime/grid-registers-sdxl-stalls-ncu.txt).
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o one_pass_phases scripts/probes/one_pass_phases.cu
//   ./one_pass_phases              (3 rounds of 201 samples)
//   ncu --cache-control none --clock-control none --metrics gpu__time_duration.sum \
//       --kernel-name regex:'^(empty|reads|writes|barrier|one_pass|no_barrier|copy)' \
//       ./one_pass_phases few      (1 round of 3 samples: device times under the same eviction)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "probe_support.cuh"

namespace {

constexpr int kThreads = 512;
constexpr int kVectors = 20;  // 132 blocks x 512 threads x 20 x 16 bytes >= 21 MB

__global__ void empty_kernel() {}

__global__ void __launch_bounds__(kThreads, 1) reads_kernel(const uint4* x, int64_t count) {
  uint4 v[kVectors];
  load_into_registers<kThreads>(x, int64_t{blockIdx.x} * kVectors * kThreads + threadIdx.x, count,
                                v);
  unsigned mix = 0u;
#pragma unroll
  for (int j = 0; j < kVectors; ++j) mix ^= v[j].x ^ v[j].w;
  if (mix == 0x9e3779b9u) probe_sink = mix;
}

__global__ void __launch_bounds__(kThreads, 1) writes_kernel(uint4* y, int64_t count) {
  const int64_t base = int64_t{blockIdx.x} * kVectors * kThreads + threadIdx.x;
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    const int64_t i = base + int64_t{j} * kThreads;
    const auto u = static_cast<unsigned>(i);
    if (i < count) y[i] = make_uint4(u, u ^ 1u, u ^ 2u, u ^ 3u);
  }
}

__global__ void __launch_bounds__(kThreads, 1) barrier_kernel(unsigned* arrived) {
  ticket_barrier(arrived);
}

__global__ void __launch_bounds__(kThreads, 1)
    one_pass_kernel(const uint4* x, uint4* y, int64_t count, unsigned* arrived) {
  one_pass_in_registers<kThreads, kVectors>(x, y, count, [&] { ticket_barrier(arrived); });
}

__global__ void __launch_bounds__(kThreads, 1)
    no_barrier_kernel(const uint4* x, uint4* y, int64_t count) {
  one_pass_in_registers<kThreads, kVectors>(x, y, count, [] { __syncthreads(); });
}

}  // namespace

int main(int argc, char** argv) {
  const bool few = argc > 1 && std::string(argv[1]) == "few";
  const int sms = sm_count();
  const int64_t bytes = int64_t{2} * 320 * 128 * 128 * 2;
  const int64_t count = bytes / 16;
  const int blocks =
      static_cast<int>((count + int64_t{kVectors} * kThreads - 1) / (int64_t{kVectors} * kThreads));
  if (blocks > sms) {
    std::printf("%d SMs: fewer than the %d blocks of one an SM\n", sms, blocks);
    return 1;
  }
  uint4 *x, *y;
  unsigned* arrived;  // one counter a kernel (each keeps its grid size)
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&y, bytes));
  CHECK(cudaMalloc(&arrived, 2 * sizeof(unsigned)));
  CHECK(cudaMemset(x, 0x11, bytes));
  CHECK(cudaMemset(arrived, 0, 2 * sizeof(unsigned)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);
  const uint4* cx = x;
  const std::vector<Case> cases = {
      {"empty", [=](cudaStream_t s) { empty_kernel<<<blocks, kThreads, 0, s>>>(); }},
      {"reads", [=](cudaStream_t s) { reads_kernel<<<blocks, kThreads, 0, s>>>(cx, count); }},
      {"writes", [=](cudaStream_t s) { writes_kernel<<<blocks, kThreads, 0, s>>>(y, count); }},
      {"barrier", [=](cudaStream_t s) { barrier_kernel<<<blocks, kThreads, 0, s>>>(arrived); }},
      {"one pass",
       [=](cudaStream_t s) {
         one_pass_kernel<<<blocks, kThreads, 0, s>>>(cx, y, count, arrived + 1);
       }},
      {"no barrier",
       [=](cudaStream_t s) { no_barrier_kernel<<<blocks, kThreads, 0, s>>>(cx, y, count); }},
      {"copy", [=](cudaStream_t s) { copy_vectors<<<4 * sms, 512, 0, s>>>(cx, y, count); }},
  };
  std::printf(
      "%d SMs, %d blocks of %d threads, %d vectors a thread; median, min and max of 201 "
      "event-timed samples (us)\n",
      sms, blocks, kThreads, kVectors);
  print_case_timings(timer, cases, few ? 1 : 3, few ? 3 : 201, 12);
  return 0;
}
