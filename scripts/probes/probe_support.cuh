// What the probes under scripts/probes share: an error check, normbench's L2 eviction before a
// cold sample (app/device/device_checks.cu: a read of the buffer at evict-last priority, then its
// lines discarded), and a spin that keeps the GPU busy so that a warm sample's launch is queued
// before the spin ends. Each probe is its own program and includes this once.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

namespace {

__global__ void read_all(const uint4* data, int64_t count, unsigned* sink) {
  uint64_t policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  unsigned acc = 0;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    uint4 v;
    asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(data + i), "l"(policy));
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

__global__ void discard_all(const char* data, int64_t bytes) {
  for (int64_t offset = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) * 128; offset < bytes;
       offset += int64_t{gridDim.x} * blockDim.x * 128)
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(data + offset) : "memory");
}

// Keeps the GPU busy for `nanoseconds`, so that the timed launch is queued before it ends.
__global__ void spin(unsigned long long nanoseconds) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}

}  // namespace
