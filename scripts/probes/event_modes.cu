// Why do short launches' event-timed samples fall in two modes some 0.2 us apart (decode.json:
// RMSNorm bfloat16 4096 warm, one row, 4.00-4.06 us and 4.22-4.29 us, in both normbench's kernel
// and torch.compile's, the median deciding on whichever mode holds half the samples)? Is the
// second mode in the kernel's own execution or outside it, in the launch and the events?
// Each sample is timed as normbench times it (L2 evicted, or a 50 us spin, then events around
// the launch), and the kernel stamps %globaltimer when its first block starts and when its last
// block ends. Every other sample brackets the launch with two one-thread kernels that stamp
// %globaltimer instead of events. Printed a case and condition, for events and stamp kernels:
// the samples in 32 ns bins, with the mean in-kernel span of each bin; if the modes have the
// same in-kernel span, the 0.2 us is outside the kernel, in what every launch pays, and if the
// stamp kernels show them too, it is not in the events' timestamps either.
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o event_modes scripts/probes/event_modes.cu
//   ./event_modes [samples]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "probe_support.cuh"

namespace {

struct Stamps {
  unsigned long long first_start, last_end;
};

__global__ void reset_stamps(Stamps* s) {
  s->first_start = ~0ull;
  s->last_end = 0ull;
}

__device__ __forceinline__ void stamp_start(Stamps* s) {
  if (threadIdx.x == 0) atomicMin(&s->first_start, globaltimer_now());
}
__device__ __forceinline__ void stamp_end(Stamps* s) {
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&s->last_end, globaltimer_now());
}

// The harness-side alternative to events: a one-thread kernel before the launch stamps the end
// of its work, one after it the start of its own; their difference spans the launch between
// them and two launch gaps, by %globaltimer instead of the events' timestamps.
__global__ void stamp_before(unsigned long long* at) {
  *at = globaltimer_now();
}
__global__ void stamp_after(unsigned long long* at) {
  *at = globaltimer_now();
}

__global__ void stamped_empty(Stamps* s) {
  stamp_start(s);
  stamp_end(s);
}

// One warp copies four cache lines: normbench's latency floor, stamped.
__global__ void stamped_copy(const uint4* x, uint4* y, Stamps* s) {
  stamp_start(s);
  y[threadIdx.x] = x[threadIdx.x];
  stamp_end(s);
}

// A row of `vecs` 16-byte vectors a block (two a thread), one block reduction, the row written
// back scaled: a decode RMSNorm's data movement and dependency, stamped.
__global__ void stamped_rows(const uint4* x, uint4* y, int vecs, Stamps* s) {
  stamp_start(s);
  __shared__ float partial[32];
  const uint4* row = x + int64_t{blockIdx.x} * vecs;
  uint4 v[2];
  float sum = 0.0f;
  for (int j = 0; j < 2; ++j) {
    const int i = threadIdx.x + j * blockDim.x;
    v[j] = i < vecs ? row[i] : make_uint4(0, 0, 0, 0);
    sum += __uint_as_float(v[j].x & 0x3f7fffffu);
  }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  sum = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0f;
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const unsigned mix = __float_as_uint(sum) | 1u;
  for (int j = 0; j < 2; ++j) {
    const int i = threadIdx.x + j * blockDim.x;
    if (i < vecs)
      y[int64_t{blockIdx.x} * vecs + i] = make_uint4(v[j].x ^ mix, v[j].y, v[j].z, v[j].w);
  }
  stamp_end(s);
}

struct Sample {
  float launch_us;  // between the two events, or the two stamp kernels
  float span_us;    // first block's start to last block's end, by %globaltimer
};

enum class Before { evict, spin, evict_then_spin };

// 32 ns bins of the samples (under 0.5% left out): count and mean in-kernel span.
void print_bins(const std::string& title, const std::vector<Sample>& taken) {
  std::map<int, std::pair<int, double>> bins;
  double sum = 0.0;
  std::vector<float> sorted;
  for (const Sample& t : taken) {
    auto& bin = bins[static_cast<int>(t.launch_us * 1000.0f / 32.0f)];
    ++bin.first;
    bin.second += t.span_us;
    sum += t.launch_us;
    sorted.push_back(t.launch_us);
  }
  std::sort(sorted.begin(), sorted.end());
  std::printf("%s: %zu samples, median %.3f us, mean %.3f\n", title.c_str(), taken.size(),
              sorted[sorted.size() / 2], sum / static_cast<double>(taken.size()));
  for (const auto& [bin, value] : bins) {
    if (value.first * 200 < static_cast<int>(taken.size())) continue;
    std::printf("  %.3f-%.3f us  %5d samples  in-kernel span %.3f us\n", bin * 0.032,
                (bin + 1) * 0.032, value.first, value.second / value.first);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 2000;
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int device = 0, l2 = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  const int64_t evict_bytes = int64_t{2} * l2;
  uint4* evict = nullptr;
  unsigned* sink = nullptr;
  CHECK(cudaMalloc(&evict, evict_bytes));
  CHECK(cudaMemset(evict, 0, evict_bytes));
  CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  const int64_t rows = 512, vecs = 512;  // rows of 4096 16-bit values
  uint4 *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&x, rows * vecs * 16));
  CHECK(cudaMalloc(&y, rows * vecs * 16));
  fill_values<<<256, 256>>>(x, rows * vecs);
  Stamps* stamps = nullptr;
  CHECK(cudaMalloc(&stamps, sizeof(Stamps)));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaDeviceSynchronize());

  const std::vector<std::pair<std::string, std::function<void()>>> cases = {
      {"nothing (two events back to back)", [] {}},
      {"empty launch (1 block)", [&] { stamped_empty<<<1, 32, 0, stream>>>(stamps); }},
      {"4 cache lines (1 warp)", [&] { stamped_copy<<<1, 32, 0, stream>>>(x, y, stamps); }},
      {"1 row of 8 KB (256 threads)",
       [&] { stamped_rows<<<1, 256, 0, stream>>>(x, y, static_cast<int>(vecs), stamps); }},
      {"512 rows of 8 KB",
       [&] { stamped_rows<<<rows, 256, 0, stream>>>(x, y, static_cast<int>(vecs), stamps); }},
  };
  const std::vector<std::pair<std::string, Before>> conditions = {
      {"cold (L2 evicted)", Before::evict},
      {"warm (50 us spin)", Before::spin},
      {"cold, then a 5 us spin", Before::evict_then_spin},
  };
  unsigned long long* bracket = nullptr;
  CHECK(cudaMalloc(&bracket, 2 * sizeof(unsigned long long)));
  for (const auto& [condition, before] : conditions) {
    for (const auto& [name, run] : cases) {
      std::vector<Sample> taken, stamped;
      for (int i = 0; i < 2 * samples + 20; ++i) {
        if (before != Before::spin) {
          read_all<<<8192, 256, 0, stream>>>(evict, evict_bytes / 16, sink);
          discard_all<<<8192, 256, 0, stream>>>(reinterpret_cast<const char*>(evict), evict_bytes);
        }
        if (before != Before::evict)
          spin<<<1, 1, 0, stream>>>(before == Before::spin ? 50000 : 5000);
        reset_stamps<<<1, 1, 0, stream>>>(stamps);
        // Odd samples: the launch between two stamp kernels instead of two events.
        const bool bracketed = i % 2 == 1;
        if (bracketed)
          stamp_before<<<1, 1, 0, stream>>>(bracket);
        else
          CHECK(cudaEventRecord(start, stream));
        run();
        if (bracketed)
          stamp_after<<<1, 1, 0, stream>>>(bracket + 1);
        else
          CHECK(cudaEventRecord(stop, stream));
        Stamps s{};
        CHECK(cudaMemcpyAsync(&s, stamps, sizeof s, cudaMemcpyDeviceToHost, stream));
        CHECK(cudaStreamSynchronize(stream));
        CHECK(cudaGetLastError());
        if (bracketed) {
          unsigned long long b[2];
          CHECK(cudaMemcpy(b, bracket, sizeof b, cudaMemcpyDeviceToHost));
          if (i >= 20)
            stamped.push_back({(b[1] - b[0]) / 1000.0f, (s.last_end - s.first_start) / 1000.0f});
          continue;
        }
        float ms = 0.0f;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (i >= 20) taken.push_back({ms * 1000.0f, (s.last_end - s.first_start) / 1000.0f});
      }
      print_bins(condition + ", " + name + ", events", taken);
      print_bins(condition + ", " + name + ", stamp kernels", stamped);
    }
  }
  return 0;
}
