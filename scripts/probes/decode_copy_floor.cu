// Can any kernel come within 1.5x of the latency floor (the issue's target) on decode.json's
// problems that miss it? decode_floor.cu times the data movement of one block a row; this probe
// drops the pattern: a plain copy of the same bytes (x -> y; add_rms_norm's x and residual ->
// y and sum as one copy of twice the bytes), no reduction, no dependency between a load and
// any store but its own, in every launch shape of a sweep (128-1024 threads, 1-8 16-byte
// vectors a thread in flight, plain or streaming loads and stores, one wave or grid-stride over
// one block an SM) and as cudaMemcpyAsync. A norm reads all of x and writes all of y, and no
// output may be stored before its row's statistics, so the fastest copy is a lower bound on any
// one-launch kernel of that problem. Beside it the latency floor as normbench measures it (one
// warp reading and writing four cache lines), in the same process and conditions, cold (L2
// evicted before each launch) and warm (data left in L2), so the ratio is measured.
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o decode_copy_floor scripts/probes/decode_copy_floor.cu
//   ./decode_copy_floor          (prints every shape, then the fastest a size and its ratio)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "probe_support.cuh"

namespace {

// Each thread loads kVectors vectors (block-strided, so that a warp's accesses are contiguous)
// before it stores any; kStreaming: ld.global.cs / st.global.cs (evict-first) instead of plain.
// Grid-stride over the blocks given, so that one block an SM is a shape as well as one wave.
template <int kVectors, bool kStreaming>
__global__ void __launch_bounds__(1024) copy_in_flight(const uint4* x, uint4* y, int64_t count) {
  const int64_t tile = int64_t{blockDim.x} * kVectors;
  for (int64_t base = int64_t{blockIdx.x} * tile + threadIdx.x; base < count;
       base += int64_t{gridDim.x} * tile) {
    uint4 v[kVectors];
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      const int64_t i = base + int64_t{j} * blockDim.x;
      if (i < count) v[j] = kStreaming ? __ldcs(x + i) : x[i];
    }
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      const int64_t i = base + int64_t{j} * blockDim.x;
      if (i < count) {
        if (kStreaming)
          __stcs(y + i, v[j]);
        else  // one 16-byte store (an assignment through uint4* compiles to four 4-byte ones)
          asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(y + i), "r"(v[j].x),
                       "r"(v[j].y), "r"(v[j].z), "r"(v[j].w)
                       : "memory");
      }
    }
  }
}

template <int kVectors, bool kStreaming>
void launch_copy(const uint4* x, uint4* y, int64_t count, int threads, int blocks, cudaStream_t s) {
  copy_in_flight<kVectors, kStreaming><<<blocks, threads, 0, s>>>(x, y, count);
}

using CopyLaunch = void (*)(const uint4*, uint4*, int64_t, int, int, cudaStream_t);

struct Variant {
  int vectors;
  bool streaming;
  CopyLaunch launch;
};

}  // namespace

int main() {
  // The misses' bytes in and out: 512 rows of 4096 and of 5120 16-bit values (RMSNorm and
  // LayerNorm), 128 rows of 8192 (LayerNorm), and twice that (add_rms_norm's two tensors).
  struct Size {
    const char* name;
    int64_t bytes;
  };
  const std::vector<Size> sizes = {{"512 x 4096 (4 MiB in, 4 out)", int64_t{512} * 4096 * 2},
                                   {"512 x 5120 (5 MiB in, 5 out)", int64_t{512} * 5120 * 2},
                                   {"128 x 8192 (2 MiB in, 2 out)", int64_t{128} * 8192 * 2},
                                   {"2 x 128 x 8192 (4 MiB in, 4 out)", int64_t{256} * 8192 * 2}};
  const int64_t max_vectors = int64_t{512} * 5120 * 2 / 16;
  uint4 *x, *y;
  CHECK(cudaMalloc(&x, max_vectors * 16));
  CHECK(cudaMalloc(&y, max_vectors * 16));
  CHECK(cudaMemset(x, 1, max_vectors * 16));
  CHECK(cudaMemset(y, 0, max_vectors * 16));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);
  const int sms = sm_count();

  const std::vector<Variant> variants = {
      {1, false, launch_copy<1, false>}, {2, false, launch_copy<2, false>},
      {4, false, launch_copy<4, false>}, {8, false, launch_copy<8, false>},
      {1, true, launch_copy<1, true>},   {2, true, launch_copy<2, true>},
      {4, true, launch_copy<4, true>},   {8, true, launch_copy<8, true>}};
  constexpr int kRounds = 2, kSamples = 101;
  // best[size][cold]: the fastest median of any copy and its name; floor_us[cold]: the latency
  // floor's largest median over the rounds (the ratio's noise then errs towards reachable).
  std::map<std::pair<int, bool>, std::pair<float, std::string>> best;
  std::map<bool, float> floor_us;
  std::printf("median, min and max of %d event-timed launches (us), %d SMs\n", kSamples, sms);
  for (int round = 0; round < kRounds; ++round) {
    for (const bool cold : {true, false}) {
      const auto report = [&](int size, const std::string& name, const LaunchTimer::Timing& t) {
        std::printf("round %d  %-5s %-62s median %6.2f  min %6.2f  max %6.2f\n", round,
                    cold ? "cold" : "warm", name.c_str(), t.median, t.min, t.max);
        if (size < 0) {
          floor_us[cold] = floor_us.count(cold) ? std::max(floor_us[cold], t.median) : t.median;
          return;
        }
        auto& b = best[{size, cold}];
        if (b.second.empty() || t.median < b.first) b = {t.median, name};
      };
      const Case floor = latency_floor_case(x, y);
      report(-1, floor.name, timer.time(floor.run, cold, kSamples));
      for (int size = 0; size < static_cast<int>(sizes.size()); ++size) {
        const int64_t count = sizes[size].bytes / 16;
        const std::string what = std::string(sizes[size].name) + ": ";
        report(size, what + "cudaMemcpyAsync",
               timer.time(
                   [=](cudaStream_t s) {
                     CHECK(cudaMemcpyAsync(y, x, count * 16, cudaMemcpyDeviceToDevice, s));
                   },
                   cold, kSamples));
        for (const Variant& v : variants)
          for (const int threads : {128, 256, 512, 1024}) {
            const int64_t one_wave =
                (count + int64_t{threads} * v.vectors - 1) / (int64_t{threads} * v.vectors);
            for (const int64_t blocks : {one_wave, int64_t{sms}}) {
              if (blocks == sms && one_wave <= sms) continue;  // the same shape as one wave
              const std::string name = what + std::to_string(threads) + " thr x " +
                                       std::to_string(v.vectors) + " vec, " +
                                       std::to_string(blocks) + " blocks" +
                                       (v.streaming ? ", streaming" : "");
              report(size, name,
                     timer.time(
                         [=](cudaStream_t s) {
                           v.launch(x, y, count, threads, static_cast<int>(blocks), s);
                         },
                         cold, kSamples));
            }
          }
      }
    }
  }
  std::printf("\nthe fastest copy a size over %d rounds, and its ratio to the latency floor\n",
              kRounds);
  for (const bool cold : {true, false}) {
    std::printf("%s: latency floor %.2f us\n", cold ? "cold" : "warm", floor_us[cold]);
    for (int size = 0; size < static_cast<int>(sizes.size()); ++size) {
      const auto& b = best[{size, cold}];
      std::printf("  %-34s %6.2f us  %.2fx  (%s)\n", sizes[size].name, b.first,
                  b.first / floor_us[cold], b.second.c_str());
    }
  }
  return 0;
}
