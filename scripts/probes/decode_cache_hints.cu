// Do cache hints move decode rows? decode_copy_floor.cu found a plain copy of 512 rows of 4096
// 16-bit values, warm, 0.45 us faster with evict-first loads and stores than without hints, in
// the launch shape of normbench's row kernel. The row kernels' hints were chosen on llm.json's
// large problems (RMSNorm and add_rms_norm: evict-last loads, evict-first stores; LayerNorm:
// none). This probe times, in one process, normbench's own row kernel (the wide_rows kernel with
// the plan and the other hints plan_wide_rows_variant gives each problem, bfloat16) with each
// set of load and store hints, over configs/decode.json's row counts and hidden sizes, cold (L2
// evicted before each launch) and warm (data left in L2), beside the copy of x to y in the same
// launch shape with the same hints.
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -o decode_cache_hints scripts/probes/decode_cache_hints.cu
//   \
//     kernels/families/wide_rows_plan.cpp kernels/problem_shape.cpp kernels/tensor_roles.cpp
//   ./decode_cache_hints [ROWS...]       (default 1 8 32 128 512)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "kernels/families/wide_rows.cuh"
#include "kernels/families/wide_rows_plan.hpp"
#include "probe_support.cuh"

namespace {

using namespace normbench;
using namespace normbench::kernels;

__global__ void copy_vectors(const uint4* x, uint4* y, int64_t count) {
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x)
    y[i] = x[i];
}

// A row a block, kVectors vectors a thread, loaded and stored with wide_rows' hints kHints.
template <int kVectors, int kHints>
__global__ void copy_rows(const __nv_bfloat16* x, __nv_bfloat16* y, int row_vectors) {
  using V = RawVector<__nv_bfloat16>;
  const int64_t row = int64_t{blockIdx.x} * row_vectors * V::kCount;
  V v[kVectors];
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    const int i = static_cast<int>(threadIdx.x) + j * static_cast<int>(blockDim.x);
    if (i >= row_vectors) continue;
    const __nv_bfloat16* p = x + row + int64_t{i} * V::kCount;
    if constexpr ((kHints & kWideRowsEvictLastLoads) != 0)
      v[j] = V::load_evict_last(p);
    else if constexpr ((kHints & kWideRowsStreamLoads) != 0)
      v[j] = V::load_streaming(p);
    else
      v[j] = V::load_plain(p);
  }
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    const int i = static_cast<int>(threadIdx.x) + j * static_cast<int>(blockDim.x);
    if (i >= row_vectors) continue;
    __nv_bfloat16* p = y + row + int64_t{i} * V::kCount;
    if constexpr ((kHints & kWideRowsStreamStores) != 0)
      v[j].store_streaming(p);
    else
      v[j].store_plain(p);
  }
}

// Pseudo-random bfloat16 values in [-1, 1) (decode_floor.cu's): LayerNorm's one reduction.
__global__ void fill_values(uint4* data, int64_t count) {
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    unsigned words[4];
    for (int k = 0; k < 4; ++k) {
      unsigned h = static_cast<unsigned>(i * 4 + k) * 2654435761u;
      h ^= h >> 15;
      const unsigned lo = (h & 1u) << 15 | (120u + (h >> 1) % 7u) << 7 | ((h >> 4) & 0x7fu);
      const unsigned hi = (h >> 11 & 1u) << 15 | (120u + (h >> 12) % 7u) << 7 | ((h >> 16) & 0x7fu);
      words[k] = lo | hi << 16;
    }
    data[i] = make_uint4(words[0], words[1], words[2], words[3]);
  }
}

constexpr int kLoadsStores[] = {
    kWideRowsEvictLastLoads | kWideRowsStreamStores,  // RMSNorm's and add_rms_norm's
    0,                                                // LayerNorm's
    kWideRowsStreamLoads | kWideRowsStreamStores,
    kWideRowsStreamStores,
    kWideRowsStreamLoads,
};
constexpr int kHintSets = sizeof(kLoadsStores) / sizeof(kLoadsStores[0]);

std::string hint_name(int hints) {
  std::string loads = (hints & kWideRowsEvictLastLoads) ? "evict-last"
                      : (hints & kWideRowsStreamLoads)  ? "evict-first"
                                                        : "plain";
  std::string stores = (hints & kWideRowsStreamStores) ? "evict-first" : "plain";
  return "loads " + loads + ", stores " + stores;
}

// normbench's row kernel for `op` with the load and store hints kLoadsStores[kSet] in place of
// its own, the rest of its hints as its variant has them: early parameters (add_rms_norm always;
// the others where plan_wide_rows_variant adds them, without the tail prefetch then) and
// LayerNorm's one reduction.
template <int kSet>
std::function<void(cudaStream_t)> row_kernel(Op op, int rows, int hidden, int sms,
                                             const KernelArgs& args) {
  ProblemFormat format;
  format.dtype = DType::bfloat16;
  format.param_dtype = DType::bfloat16;
  const ProblemShape p =
      make_problem_shape(op, {rows, hidden}, {hidden}, 0, 1e-5, 1.0, true, format);
  const WideRowsPlan plan = plan_wide_rows(p, rows <= 4 * sms);
  const bool early = rows <= (op == Op::rms_norm ? 4 : 2) * sms;
  constexpr int kHints = kLoadsStores[kSet];
  constexpr int kLayer = kHints | kWideRowsOneReduction;
  return [=](cudaStream_t s) {
    KernelArgs a = args;
    a.stream = s;
    const IdentityEpilogue e{};
    cudaError_t error = cudaSuccess;
    if (op == Op::rms_norm)
      error = early ? launch_wide_rows<Norm::rms, kHints | kWideRowsEarlyParams>(p, plan, a, e)
                    : launch_wide_rows<Norm::rms, kHints>(p, plan, a, e);
    if (op == Op::add_rms_norm)
      error = launch_wide_rows<Norm::add_rms, kHints | kWideRowsEarlyParams>(p, plan, a, e);
    if (op == Op::layer_norm)
      error = early
                  ? launch_wide_rows<Norm::centered, kLayer | kWideRowsEarlyParams>(p, plan, a, e)
                  : launch_wide_rows<Norm::centered, kLayer | kWideRowsPrefetchTail>(p, plan, a, e);
    CHECK(error);
  };
}

template <int... kSets>
std::vector<std::function<void(cudaStream_t)>> row_kernels(std::integer_sequence<int, kSets...>,
                                                           Op op, int rows, int hidden, int sms,
                                                           const KernelArgs& args) {
  return {row_kernel<kSets>(op, rows, hidden, sms, args)...};
}

template <int... kSets>
std::vector<std::function<void(cudaStream_t)>> row_copies(std::integer_sequence<int, kSets...>,
                                                          int rows, int hidden, const void* x,
                                                          void* y) {
  const int row_vectors = hidden / 8;
  const int threads = (row_vectors / 2 + 31) / 32 * 32;  // the plan's two vectors a thread
  return {[=](cudaStream_t s) {
    copy_rows<2, kLoadsStores[kSets]><<<rows, threads, 0, s>>>(
        static_cast<const __nv_bfloat16*>(x), static_cast<__nv_bfloat16*>(y), row_vectors);
  }...};
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> row_counts;
  for (int a = 1; a < argc; ++a) row_counts.push_back(std::atoi(argv[a]));
  if (row_counts.empty()) row_counts = {1, 8, 32, 128, 512};
  for (const int rows : row_counts)
    if (rows < 1 || rows > 512) {
      std::printf("rows %d: not between 1 and 512\n", rows);
      return 2;
    }
  const int64_t max_vectors = int64_t{512} * 8192 * 2 / 16;
  uint4 *x, *residual, *y, *sum, *params;
  for (uint4** p : {&x, &residual, &y, &sum}) {
    CHECK(cudaMalloc(p, max_vectors * 16));
    CHECK(cudaMemset(*p, 0, max_vectors * 16));
  }
  CHECK(cudaMalloc(&params, 2 * 8192 * 2));
  fill_values<<<1024, 256>>>(x, max_vectors);
  fill_values<<<1024, 256>>>(residual, max_vectors);
  fill_values<<<8, 256>>>(params, 2 * 8192 * 2 / 16);
  CHECK(cudaDeviceSynchronize());
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);
  const int sms = sm_count();

  std::vector<Case> cases = {{"latency floor: 4 cache lines (1 warp)",
                              [=](cudaStream_t s) { copy_vectors<<<1, 32, 0, s>>>(x, y, 32); }}};
  const auto sets = std::make_integer_sequence<int, kHintSets>{};
  for (const Op op : {Op::rms_norm, Op::add_rms_norm, Op::layer_norm})
    for (const int hidden : {4096, 5120, 8192})
      for (const int rows : row_counts) {
        KernelArgs args;
        args.x = x;
        args.residual = op == Op::add_rms_norm ? residual : nullptr;
        args.weight = params;
        args.bias = op == Op::layer_norm ? params + hidden / 8 : nullptr;
        args.y = y;
        args.sum = op == Op::add_rms_norm ? sum : nullptr;
        const std::string shape = std::string(op == Op::rms_norm       ? "rms_norm    "
                                              : op == Op::add_rms_norm ? "add_rms_norm"
                                                                       : "layer_norm  ") +
                                  " " + std::to_string(rows) + " x " + std::to_string(hidden);
        const auto kernels = row_kernels(sets, op, rows, hidden, sms, args);
        for (int k = 0; k < kHintSets; ++k)
          cases.push_back({shape + ", kernel, " + hint_name(kLoadsStores[k]), kernels[k]});
        if (op != Op::rms_norm) continue;  // the copies once a shape
        const auto copies = row_copies(sets, rows, hidden, x, y);
        for (int k = 0; k < kHintSets; ++k)
          cases.push_back({shape + ", copy,   " + hint_name(kLoadsStores[k]), copies[k]});
      }
  std::printf("median, min and max of 101 event-timed launches (us)\n");
  print_case_timings(timer, cases, 2, 101, 78);
  return 0;
}
