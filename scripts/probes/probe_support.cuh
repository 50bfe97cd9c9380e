// What the timing probes under scripts/probes share: the error check (probe_check.cuh),
// normbench's L2 eviction before a cold sample (app/device/device_checks.cu: a read of the buffer
// at evict-last priority, then its lines discarded), a spin that keeps the GPU busy so that a
// warm sample's launch is queued before the spin ends, the event-timed loop over samples that
// uses them, the rounds over named cases that most probes print, and the one-pass skeleton of
// x held in registers with a ticket grid barrier. Each probe is its own
// program and includes this once.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "probe_check.cuh"

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

// Each thread copies 16-byte vectors, grid-striding: `count` of them from x to y. On one warp and
// 32 vectors (four cache lines), the latency floor as normbench measures it.
__global__ void copy_vectors(const uint4* x, uint4* y, int64_t count) {
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x)
    y[i] = x[i];
}

// Pseudo-random bfloat16 values in [-1, 1), so that LayerNorm takes its usual one reduction (a
// constant row takes its exact second pass).
__global__ void fill_values(uint4* data, int64_t count) {
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    unsigned words[4];
    for (int k = 0; k < 4; ++k) {
      unsigned h = static_cast<unsigned>(i * 4 + k) * 2654435761u;
      h ^= h >> 15;
      // Two bfloat16 values: a sign, an exponent of 2^-7 .. 2^-1 and 7 bits of mantissa each.
      const unsigned lo = (h & 1u) << 15 | (120u + (h >> 1) % 7u) << 7 | ((h >> 4) & 0x7fu);
      const unsigned hi = (h >> 11 & 1u) << 15 | (120u + (h >> 12) % 7u) << 7 | ((h >> 16) & 0x7fu);
      words[k] = lo | hi << 16;
    }
    data[i] = make_uint4(words[0], words[1], words[2], words[3]);
  }
}

// Keeps the GPU busy for `nanoseconds`, so that the timed launch is queued before it ends.
__global__ void spin(unsigned long long nanoseconds) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}

// The current device's number of SMs.
inline int sm_count() {
  int device = 0, sms = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

__device__ unsigned probe_sink;  // written only on an impossible value: a dependency, not data

// Thread t's vectors into registers: vector j is base + j * kThreads (base = begin + t), zero at
// and past `end`.
template <int kThreads, int kVectors>
__device__ __forceinline__ void load_into_registers(const uint4* x, int64_t base, int64_t end,
                                                    uint4 (&v)[kVectors]) {
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    const int64_t i = base + int64_t{j} * kThreads;
    v[j] = i < end ? x[i] : make_uint4(0, 0, 0, 0);
  }
}

// The one-pass skeleton of x held in registers: thread t loads vectors begin + t + j * kThreads
// (j < kVectors, below `end`), folds one word of each into a value that a store before the
// barrier depends on (so that every load is waited for), calls barrier(), and stores each vector
// with that value mixed into it.
template <int kThreads, int kVectors, class Barrier>
__device__ __forceinline__ void hold_in_registers(const uint4* x, uint4* y, int64_t begin,
                                                  int64_t end, const Barrier& barrier) {
  const int64_t base = begin + threadIdx.x;
  uint4 v[kVectors];
  load_into_registers<kThreads>(x, base, end, v);
  unsigned mix = 0u;
#pragma unroll
  for (int j = 0; j < kVectors; ++j) mix ^= v[j].x;
  // A store that depends on every load, before the barrier: without it ptxas sank the sum past
  // the barrier, and blocks arrived with their loads still in flight (on 21 MB some "read" their
  // 159 KB in 2.8 us, and the one pass took 0.4-0.6 us less than with the store).
  if (mix == 0x9e3779b9u) probe_sink = mix;
  barrier();
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    const int64_t i = base + int64_t{j} * kThreads;
    if (i < end) y[i] = make_uint4(v[j].x ^ (mix | 1u), v[j].y, v[j].z, v[j].w);
  }
}
// The same with block b holding vectors b * kVectors * kThreads onwards, below `count`
// (cooperative_launch.cu, held_layout.cu).
template <int kThreads, int kVectors, class Barrier>
__device__ __forceinline__ void one_pass_in_registers(const uint4* x, uint4* y, int64_t count,
                                                      const Barrier& barrier) {
  hold_in_registers<kThreads, kVectors>(x, y, int64_t{blockIdx.x} * kVectors * kThreads, count,
                                        barrier);
}

__device__ __forceinline__ unsigned long long globaltimer_now() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}
// Traps a barrier's wait after a second: not every block is resident, a failure, not a hang.
__device__ __forceinline__ void trap_after_timeout(unsigned long long begin) {
  if (globaltimer_now() - begin > 1000000000ull) __trap();
}

// A grid barrier by tickets: `arrived` is used by launches of one grid size only (its count
// stays a multiple of it), and each launch waits for the next multiple.
__device__ void ticket_barrier(unsigned* arrived) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    const unsigned ticket = atomicAdd(arrived, 1u) + 1u;
    const unsigned target = (ticket + gridDim.x - 1) / gridDim.x * gridDim.x;
    const unsigned long long begin = globaltimer_now();
    unsigned seen;
    do {
      asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(seen) : "l"(arrived) : "memory");
      trap_after_timeout(begin);
    } while (static_cast<int>(seen - target) < 0);
  }
  __syncthreads();
}

// Event-timed samples of one launch on one stream: cold (L2 evicted before each sample by a read
// of twice its size and the discard of its lines) or warm (queued behind a 50 us spin, as
// normbench's hold). Owns the eviction buffer and the events.
class LaunchTimer {
 public:
  struct Timing {
    float median, min, max;  // us
  };

  explicit LaunchTimer(cudaStream_t stream) : stream_(stream) {
    int device = 0, l2 = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    evict_bytes_ = int64_t{2} * l2;
    CHECK(cudaMalloc(&evict_, evict_bytes_));
    CHECK(cudaMemset(evict_, 0, evict_bytes_));
    CHECK(cudaMalloc(&sink_, sizeof(unsigned)));
    CHECK(cudaEventCreate(&start_));
    CHECK(cudaEventCreate(&stop_));
  }

  // `samples` launches of run(stream), each after before(stream) where given (queued after the
  // eviction or spin, outside the timed events).
  template <class Run>
  Timing time(Run&& run, bool cold, int samples,
              const std::function<void(cudaStream_t)>& before = {}) const {
    std::vector<float> us;
    for (int rep = 0; rep < samples; ++rep) {
      if (cold) {
        read_all<<<8192, 256, 0, stream_>>>(evict_, evict_bytes_ / 16, sink_);
        discard_all<<<8192, 256, 0, stream_>>>(reinterpret_cast<const char*>(evict_), evict_bytes_);
      } else {
        spin<<<1, 1, 0, stream_>>>(50000);
      }
      if (before) before(stream_);
      CHECK(cudaEventRecord(start_, stream_));
      run(stream_);
      CHECK(cudaEventRecord(stop_, stream_));
      CHECK(cudaEventSynchronize(stop_));
      CHECK(cudaGetLastError());
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start_, stop_));
      us.push_back(ms * 1000.0f);
    }
    std::sort(us.begin(), us.end());
    return {us[us.size() / 2], us.front(), us.back()};
  }

 private:
  cudaStream_t stream_;
  uint4* evict_ = nullptr;
  int64_t evict_bytes_ = 0;
  unsigned* sink_ = nullptr;
  cudaEvent_t start_, stop_;
};

// A launch a probe times, by name.
struct Case {
  std::string name;
  std::function<void(cudaStream_t)> run;
};

// The latency floor as normbench measures it: one warp reading and writing four cache lines.
inline Case latency_floor_case(const uint4* x, uint4* y) {
  return {"latency floor: 4 cache lines (1 warp)",
          [=](cudaStream_t s) { copy_vectors<<<1, 32, 0, s>>>(x, y, 32); }};
}

// `rounds` rounds (their spread is the noise) of every case whose name contains `only`, cold
// then warm, `samples` launches each: a line a case, its name in `name_width` columns.
inline void print_case_timings(const LaunchTimer& timer, const std::vector<Case>& cases, int rounds,
                               int samples, int name_width, const std::string& only = "") {
  for (int round = 0; round < rounds; ++round) {
    for (const bool cold : {true, false}) {
      for (const Case& c : cases) {
        if (c.name.find(only) == std::string::npos) continue;
        const LaunchTimer::Timing t = timer.time(c.run, cold, samples);
        std::printf("round %d  %-5s %-*s median %6.2f  min %6.2f  max %6.2f\n", round,
                    cold ? "cold" : "warm", name_width, c.name.c_str(), t.median, t.min, t.max);
      }
    }
  }
}

}  // namespace
