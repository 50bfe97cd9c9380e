// What a grid barrier costs under normbench's timing, and whether one of our own would beat
// cooperative groups' grid.sync() (group_norm.grid_registers and grid_tiles use it). Kernels of
// one block an SM, 512 threads, each with one barrier of each kind:
//   grid.sync()        cooperative groups (a cooperative launch; the driver's barrier word);
//   ticket             one thread a block fences, adds one to a counter and polls it with
//                      acquire loads until it reaches the next multiple of the grid (the counter
//                      only grows; one counter per grid size): in device memory from cudaMalloc,
//                      or a module global;
//   ticket per size    the same in a module global array indexed by the grid's size, counting
//                      modulo the largest multiple of the grid below 2^32 (atomicInc), so that a
//                      kernel could keep it across launches of any grid size;
//   generation         one 64-bit module global, arrivals and a generation: the last block to
//                      arrive resets the count and steps the generation with a second atomic.
// Launches: an empty kernel (ordinary and cooperative launch), a kernel that only waits at the
// barrier, and a one-pass skeleton of SDXL's 21 MB (2 x 320 x 128 x 128 float16: x into
// registers, the barrier, y stored), each cold and warm as normbench times them.
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o cooperative_launch scripts/probes/cooperative_launch.cu
//   ./cooperative_launch
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "probe_support.cuh"

namespace {

constexpr int kThreads = 512;
constexpr int kVectors = 20;                   // 132 blocks x 512 threads x 20 x 16 bytes >= 21 MB
__device__ unsigned module_tickets[4096 + 1];  // [grid blocks]
__device__ unsigned per_size_tickets[4096 + 1];  // [grid blocks]
__device__ unsigned long long generation_word;   // generation << 32 | arrivals

__device__ void ticket_per_size_barrier() {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned blocks = gridDim.x;
    const unsigned cycle = 0xffffffffu / blocks * blocks;  // the count runs 0 .. cycle - 1
    unsigned* count = &per_size_tickets[blocks];
    __threadfence();
    const unsigned ticket = atomicInc(count, cycle - 1);
    const unsigned start = ticket - ticket % blocks;
    const unsigned long long begin = globaltimer_now();
    unsigned seen, distance;
    do {
      asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(seen) : "l"(count) : "memory");
      distance = seen >= start ? seen - start : seen + (cycle - start);
      trap_after_timeout(begin);
    } while (distance < blocks);
  }
  __syncthreads();
}

__device__ void generation_barrier() {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned long long blocks = gridDim.x;
    __threadfence();
    const unsigned long long seen = atomicAdd(&generation_word, 1ull);
    if ((seen & 0xffffffffull) == blocks - 1) {
      __threadfence();
      atomicAdd(&generation_word, (1ull << 32) - blocks);
    } else {
      const unsigned long long begin = globaltimer_now();
      unsigned long long now;
      do {
        asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(now) : "l"(&generation_word) : "memory");
        trap_after_timeout(begin);
      } while ((now >> 32) == (seen >> 32));
    }
  }
  __syncthreads();
}

enum Kind { kGridSync, kTicket, kTicketModule, kTicketPerSize, kGeneration };

template <int kKind>
__device__ void barrier(unsigned* arrived) {
  if constexpr (kKind == kGridSync) cooperative_groups::this_grid().sync();
  if constexpr (kKind == kTicket) ticket_barrier(arrived);
  if constexpr (kKind == kTicketModule) ticket_barrier(&module_tickets[gridDim.x]);
  if constexpr (kKind == kTicketPerSize) ticket_per_size_barrier();
  if constexpr (kKind == kGeneration) generation_barrier();
}

__global__ void __launch_bounds__(kThreads, 1) empty_kernel(unsigned*) {}

template <int kKind>
__global__ void __launch_bounds__(kThreads, 1) barrier_kernel(unsigned* arrived) {
  barrier<kKind>(arrived);
}

template <int kKind>
__global__ void __launch_bounds__(kThreads, 1)
    one_pass(const uint4* x, uint4* y, int64_t count, unsigned* arrived) {
  one_pass_in_registers<kThreads, kVectors>(x, y, count, [&] { barrier<kKind>(arrived); });
}

// An ordinary launch or a cooperative one of `kernel` over `blocks` blocks.
template <class... Args>
std::function<void(cudaStream_t)> launcher(void (*kernel)(Args...), bool cooperative, int blocks,
                                           Args... args) {
  return [=](cudaStream_t s) {
    if (cooperative) {
      void* params[] = {const_cast<void*>(static_cast<const void*>(&args))...};
      CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), blocks, kThreads, params,
                                        0, s));
    } else {
      kernel<<<blocks, kThreads, 0, s>>>(args...);
    }
  };
}

}  // namespace

int main() {
  const int sms = sm_count();
  const int64_t bytes = int64_t{2} * 320 * 128 * 128 * 2;
  const int64_t count = bytes / 16;
  if (int64_t{sms} * kThreads * kVectors < count || sms > 4096) {
    std::printf("%d SMs: not between 21 MB at %d vectors a thread and 4096\n", sms, kVectors);
    return 1;
  }
  const int blocks =
      static_cast<int>((count + int64_t{kVectors} * kThreads - 1) / (int64_t{kVectors} * kThreads));
  uint4 *x, *y;
  unsigned* arrived;  // one counter per case that uses one (each keeps its grid size)
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&y, bytes));
  CHECK(cudaMalloc(&arrived, 8 * sizeof(unsigned)));
  CHECK(cudaMemset(x, 0x11, bytes));
  CHECK(cudaMemset(arrived, 0, 8 * sizeof(unsigned)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);

  const uint4* cx = x;
  const std::vector<Case> cases = {
      {"empty, ordinary launch", launcher(empty_kernel, false, sms, arrived)},
      {"empty, cooperative launch", launcher(empty_kernel, true, sms, arrived)},
      {"barrier: grid.sync()", launcher(barrier_kernel<kGridSync>, true, sms, arrived)},
      {"barrier: ticket, cudaMalloc", launcher(barrier_kernel<kTicket>, true, sms, arrived)},
      {"barrier: ticket, module global",
       launcher(barrier_kernel<kTicketModule>, true, sms, arrived)},
      {"barrier: ticket per size", launcher(barrier_kernel<kTicketPerSize>, true, sms, arrived)},
      {"barrier: generation", launcher(barrier_kernel<kGeneration>, true, sms, arrived)},
      {"one pass 21 MB: grid.sync()",
       launcher(one_pass<kGridSync>, true, blocks, cx, y, count, arrived)},
      {"one pass 21 MB: ticket, cudaMalloc",
       launcher(one_pass<kTicket>, true, blocks, cx, y, count, arrived + 1)},
      {"one pass 21 MB: ticket, cudaMalloc, ordinary launch",
       launcher(one_pass<kTicket>, false, blocks, cx, y, count, arrived + 2)},
      {"one pass 21 MB: ticket, module global",
       launcher(one_pass<kTicketModule>, true, blocks, cx, y, count, arrived)},
      {"one pass 21 MB: ticket per size",
       launcher(one_pass<kTicketPerSize>, true, blocks, cx, y, count, arrived)},
      {"one pass 21 MB: generation",
       launcher(one_pass<kGeneration>, true, blocks, cx, y, count, arrived)},
  };

  std::printf(
      "%d SMs, %d threads a block (one an SM), one pass on %d blocks; median, min and "
      "max of 201 event-timed samples (us)\n",
      sms, kThreads, blocks);
  print_case_timings(timer, cases, 3, 201, 54);
  return 0;
}
