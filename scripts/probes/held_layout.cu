// Where group_norm.grid_registers' time on SDXL's 2 x 320 x 128 x 128 float16 (21 MB) goes: its
// data movement alone, in its own layout, against the one-pass skeleton of cooperative_launch.cu.
// One-pass skeletons (x read once, one grid barrier, y written once, no arithmetic but one word
// of each vector summed so that every load is waited for), one block an SM:
//   registers     512 threads x 20 vectors in registers (cooperative_launch.cu's skeleton);
//   held layout   grid_registers' plan: 2 x 66 blocks of 384 threads, 9 lanes x 40 columns (a
//                 whole row of 640 bytes a position), 249 positions a block, 12 vectors a thread
//                 in registers and 16 in shared memory, one bulk copy a slab by thread 0 after
//                 its register loads, one mbarrier a slab;
//   held, copies first   the same with the slabs' copies issued before the register loads;
//   held, no barrier     the held layout without the grid barrier (its cost, by difference).
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -o held_layout scripts/probes/held_layout.cu
//   ./held_layout
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "kernels/device/bulk_copy.cuh"
#include "probe_support.cuh"

namespace {

using normbench::kernels::bulk_copy;
using normbench::kernels::expect_bulk_bytes;
using normbench::kernels::fence_bulk_barrier_init;
using normbench::kernels::init_bulk_barrier;
using normbench::kernels::wait_first_phase;

// SDXL's shape, channels-last float16: 16-byte vectors, 40 a position.
constexpr int kSamples = 2, kPositions = 128 * 128, kColumns = 40;
constexpr int64_t kCount = int64_t{kSamples} * kPositions * kColumns;  // vectors

// The skeleton of cooperative_launch.cu: 20 vectors a thread in registers.
constexpr int kRegisterThreads = 512, kRegisterVectors = 20;
__global__ void __launch_bounds__(kRegisterThreads, 1) registers_pass(const uint4* x, uint4* y) {
  one_pass_in_registers<kRegisterThreads, kRegisterVectors>(
      x, y, kCount, [] { cooperative_groups::this_grid().sync(); });
}

// grid_registers' plan of SDXL fp16.
constexpr int kHeldThreads = 384, kLanes = 9, kRanks = 66, kBlockPositions = 249;
constexpr int kRegisters = 12, kShared = 16;
static_assert(kLanes * (kRegisters + kShared) >= kBlockPositions, "a block's positions held");
static_assert(int64_t{kRanks} * kBlockPositions >= kPositions, "a sample's positions held");

template <bool kCopiesFirst, bool kBarrier>
__global__ void __launch_bounds__(kHeldThreads, 1) held_pass(const uint4* x, uint4* y) {
  extern __shared__ uint4 held[];  // [kShared][kHeldThreads]
  __shared__ uint64_t landed[kShared];
  const int sample = static_cast<int>(blockIdx.x) / kRanks;
  const int rank = static_cast<int>(blockIdx.x) % kRanks;
  const int lane = static_cast<int>(threadIdx.x) / kColumns;
  const int column = static_cast<int>(threadIdx.x) % kColumns;
  const int first = rank * kBlockPositions;
  const int end = min(first + kBlockPositions, kPositions);
  const int remaining = lane < kLanes ? end - (first + lane) : 0;
  const auto holds = [&](int j) { return j * kLanes < remaining; };
  const int64_t at = (int64_t{sample} * kPositions + first + lane) * kColumns + column;
  constexpr int64_t kStep = int64_t{kLanes} * kColumns;  // vectors between a thread's
  const uint4* block_x = x + (int64_t{sample} * kPositions + first) * kColumns;

  if (threadIdx.x == 0) {
    for (int k = 0; k < kShared; ++k) init_bulk_barrier(&landed[k], 1);
    fence_bulk_barrier_init();
  }
  __syncthreads();
  const auto issue_copies = [&] {
    if (threadIdx.x != 0) return;
#pragma unroll 1
    for (int k = 0; k < kShared; ++k) {
      const int lanes = max(0, min(kLanes, end - first - (kRegisters + k) * kLanes));
      const auto bytes = static_cast<unsigned>(lanes * kColumns * 16);
      expect_bulk_bytes(&landed[k], bytes);
      if (bytes > 0)
        bulk_copy(held + k * kHeldThreads, block_x + (kRegisters + k) * kStep, bytes, &landed[k]);
    }
  };
  if constexpr (kCopiesFirst) issue_copies();
  uint4 v[kRegisters];
#pragma unroll
  for (int j = 0; j < kRegisters; ++j)
    if (holds(j)) v[j] = x[at + j * kStep];
  if constexpr (!kCopiesFirst) issue_copies();
  unsigned mix = 1u;
#pragma unroll
  for (int j = 0; j < kRegisters; ++j)
    if (holds(j)) mix += v[j].x & 0x3fu;
#pragma unroll 1
  for (int k = 0; k < kShared; ++k) {
    wait_first_phase(&landed[k]);
    if (holds(kRegisters + k)) mix += held[k * kHeldThreads + threadIdx.x].x & 0x3fu;
  }
  if constexpr (kBarrier) cooperative_groups::this_grid().sync();
#pragma unroll
  for (int j = 0; j < kRegisters; ++j)
    if (holds(j)) y[at + j * kStep] = make_uint4(v[j].x ^ mix, v[j].y, v[j].z, v[j].w);
#pragma unroll 1
  for (int k = 0; k < kShared; ++k)
    if (holds(kRegisters + k)) {
      const uint4 w = held[k * kHeldThreads + threadIdx.x];
      y[at + (kRegisters + k) * kStep] = make_uint4(w.x ^ mix, w.y, w.z, w.w);
    }
}

template <class... Args>
std::function<void(cudaStream_t)> cooperative(void (*kernel)(Args...), int blocks, int threads,
                                              size_t shared, Args... args) {
  return [=](cudaStream_t s) {
    void* params[] = {const_cast<void*>(static_cast<const void*>(&args))...};
    CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(kernel), blocks, threads, params,
                                      shared, s));
  };
}

}  // namespace

int main() {
  const int sms = sm_count();
  const int register_blocks =
      static_cast<int>((kCount + int64_t{kRegisterVectors} * kRegisterThreads - 1) /
                       (int64_t{kRegisterVectors} * kRegisterThreads));
  const int held_blocks = kSamples * kRanks;
  if (sms < register_blocks || sms < held_blocks) {
    std::printf("%d SMs: fewer than the %d and %d blocks of one wave\n", sms, register_blocks,
                held_blocks);
    return 1;
  }
  uint4 *x, *y;
  CHECK(cudaMalloc(&x, kCount * sizeof(uint4)));
  CHECK(cudaMalloc(&y, kCount * sizeof(uint4)));
  CHECK(cudaMemset(x, 0x11, kCount * sizeof(uint4)));
  const size_t shared = size_t{kShared} * kHeldThreads * sizeof(uint4);
  CHECK(cudaFuncSetAttribute(held_pass<false, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(shared)));
  CHECK(cudaFuncSetAttribute(held_pass<true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(shared)));
  CHECK(cudaFuncSetAttribute(held_pass<false, false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(shared)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);

  const uint4* cx = x;
  const std::vector<Case> cases = {
      {"registers: 512 threads x 20",
       cooperative(registers_pass, register_blocks, kRegisterThreads, 0, cx, y)},
      {"held layout: 12 + 16 shared",
       cooperative(held_pass<false, true>, held_blocks, kHeldThreads, shared, cx, y)},
      {"held, copies first",
       cooperative(held_pass<true, true>, held_blocks, kHeldThreads, shared, cx, y)},
      {"held, no barrier",
       cooperative(held_pass<false, false>, held_blocks, kHeldThreads, shared, cx, y)},
  };
  std::printf(
      "SDXL float16 2 x 320 x 128 x 128 (21 MB) one-pass skeletons; median, min and max "
      "of 201 event-timed samples (us)\n");
  print_case_timings(timer, cases, 3, 201, 30);
  return 0;
}
