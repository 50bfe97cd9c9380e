// How much of a one-pass GroupNorm's time is the SMs' unequal share of DRAM bandwidth, and what
// a split of x weighted by SM would give back. The skeleton is the probes' one pass
// (hold_in_registers: each block loads its share of x into registers, waits for every load,
// waits at a grid barrier, writes y from registers) on SDXL's 2 x 320 x 128 x 128
// float16 (21 MB), one block on every SM, with each block's share of x looked up by its slot:
//   by block  slot = blockIdx.x, equal shares (grid_registers' split);
//   by SM     slot = %smid (one block an SM: a bijection for this grid), equal shares;
//   weighted  slot = %smid, shares in proportion to each SM's read speed measured by a first
//             run of the equal split (median over its launches of the time from the block's
//             start to its loads landed), and half-way between equal and that.
// Prints each SM's read time of the equal split, then the cases, cold (L2 evicted), medians of
// 101 event-timed samples. Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o sm_balance scripts/probes/sm_balance.cu
//   ./sm_balance
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "probe_support.cuh"

namespace {

constexpr int kThreads = 512;
constexpr int kMaxVectors = 24;  // a thread's registers of x: 196 KB a block, 21 MB / 132 = 159

__device__ unsigned smid() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Slot s holds vectors starts[s] .. starts[s + 1] - 1 of x in registers (hold_in_registers).
// read_ns (if not null): per slot, from the block's start to every thread's loads landed.
__global__ void __launch_bounds__(kThreads, 1)
    split_pass(const uint4* x, uint4* y, const int64_t* starts, bool by_sm, unsigned* arrived,
               unsigned* read_ns) {
  const unsigned long long start = globaltimer_now();
  const unsigned slot = by_sm ? smid() : blockIdx.x;
  if (slot >= gridDim.x) __trap();  // %smid beyond the grid: this GPU numbers its SMs otherwise
  hold_in_registers<kThreads, kMaxVectors>(x, y, starts[slot], starts[slot + 1], [&] {
    __syncthreads();
    if (read_ns != nullptr && threadIdx.x == 0)
      read_ns[slot] = static_cast<unsigned>(globaltimer_now() - start);
    ticket_barrier(arrived);
  });
}

// Vector offsets of slots in proportion to `weights` (each share a multiple of kThreads
// vectors but the last), or empty where a share exceeds a block's registers.
std::vector<int64_t> split(int64_t count, const std::vector<double>& weights) {
  double total = 0.0;
  for (double w : weights) total += w;
  std::vector<int64_t> starts(weights.size() + 1, 0);
  double acc = 0.0;
  for (size_t s = 0; s < weights.size(); ++s) {
    acc += weights[s];
    starts[s + 1] =
        s + 1 == weights.size()
            ? count
            : std::llround(acc / total * static_cast<double>(count) / kThreads) * kThreads;
    if (starts[s + 1] - starts[s] > int64_t{kMaxVectors} * kThreads) return {};
  }
  return starts;
}

}  // namespace

int main() {
  const int sms = sm_count();
  const int64_t bytes = int64_t{2} * 320 * 128 * 128 * 2;
  const int64_t count = bytes / 16;
  uint4 *x, *y;
  unsigned *arrived, *read_ns;
  int64_t* starts;
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&y, bytes));
  constexpr int kCases = 8;
  CHECK(cudaMalloc(&arrived, kCases * sizeof(unsigned)));
  CHECK(cudaMalloc(&read_ns, sms * sizeof(unsigned)));
  CHECK(cudaMalloc(&starts, kCases * (sms + 1) * sizeof(int64_t)));
  CHECK(cudaMemset(x, 0x11, bytes));
  CHECK(cudaMemset(arrived, 0, kCases * sizeof(unsigned)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);

  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, split_pass, kThreads, 0));
  if (per_sm != 1) {
    std::printf("%d blocks an SM fit: the split by %%smid needs exactly one\n", per_sm);
    return 1;
  }
  int cases = 0;
  const auto upload = [&](const std::vector<int64_t>& host) {
    int64_t* at = starts + cases * (sms + 1);
    CHECK(cudaMemcpy(at, host.data(), host.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
    return at;
  };
  const std::vector<double> equal(sms, 1.0);
  const std::vector<int64_t> equal_split = split(count, equal);

  // Each SM's read time of the equal split by SM: medians over 41 cold launches.
  int64_t* equal_at = upload(equal_split);
  unsigned* equal_counter = arrived + cases++;
  std::vector<std::vector<unsigned>> reads(sms);
  std::vector<unsigned> one(sms);
  for (int launch = 0; launch < 41; ++launch) {
    timer.time(
        [&](cudaStream_t s) {
          split_pass<<<sms, kThreads, 0, s>>>(x, y, equal_at, true, equal_counter, read_ns);
        },
        true, 1);
    CHECK(cudaMemcpy(one.data(), read_ns, sms * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int s = 0; s < sms; ++s) reads[s].push_back(one[s]);
  }
  std::vector<double> median_read(sms);
  std::printf("%d SMs, x of %.1f MB, one block an SM of %d threads\n", sms, bytes / 1e6, kThreads);
  std::printf("each SM's time from its block's start to its loads summed, equal split (us):\n");
  for (int s = 0; s < sms; ++s) {
    std::sort(reads[s].begin(), reads[s].end());
    median_read[s] = reads[s][reads[s].size() / 2] / 1e3;
    std::printf("%4d:%5.2f%s", s, median_read[s], s % 12 == 11 || s + 1 == sms ? "\n" : " ");
  }

  struct Case {
    std::string name;
    int64_t* at;
    bool by_sm;
    unsigned* counter;
  };
  std::vector<Case> timed;
  timed.push_back({"by block, equal shares", upload(equal_split), false, arrived + cases++});
  timed.push_back({"by SM, equal shares", equal_at, true, equal_counter});
  for (double strength : {0.5, 1.0}) {
    std::vector<double> weights(sms);
    for (int s = 0; s < sms; ++s) weights[s] = std::pow(1.0 / median_read[s], strength);
    const std::vector<int64_t> weighted = split(count, weights);
    if (weighted.empty()) {
      std::printf("weights ^%.1f: a share beyond a block's registers, not run\n", strength);
      continue;
    }
    int64_t smallest = count, largest = 0;
    for (int s = 0; s < sms; ++s) {
      smallest = std::min(smallest, weighted[s + 1] - weighted[s]);
      largest = std::max(largest, weighted[s + 1] - weighted[s]);
    }
    timed.push_back({"by SM, shares ~ (1 / read time)^" + std::to_string(strength).substr(0, 3) +
                         " (" + std::to_string(smallest) + "-" + std::to_string(largest) +
                         " vectors)",
                     upload(weighted), true, arrived + cases++});
  }
  std::printf("cold (L2 evicted); median, min and max of 101 event-timed samples (us)\n");
  for (int round = 0; round < 3; ++round)
    for (const Case& c : timed) {
      const LaunchTimer::Timing t = timer.time(
          [&](cudaStream_t s) {
            split_pass<<<sms, kThreads, 0, s>>>(x, y, c.at, c.by_sm, c.counter, nullptr);
          },
          true, 101);
      std::printf("round %d  %-58s median %6.2f  min %6.2f  max %6.2f\n", round, c.name.c_str(),
                  t.median, t.min, t.max);
    }
  return 0;
}
