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
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -o decode_cache_hints \
//     scripts/probes/decode_cache_hints.cu kernels/families/wide_rows_plan.cpp \
//     kernels/problem_shape.cpp kernels/tensor_roles.cpp kernels/registry.cpp
//   ./decode_cache_hints [ROWS...]       (default 1 8 32 128 512)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "probe_support.cuh"
#include "row_kernel.cuh"

namespace {

using namespace normbench;
using namespace normbench::kernels;

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

constexpr int kLoadsStores[] = {
    kShippedRmsLoadsStores,
    kShippedLayerNormLoadsStores,
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

template <int... kSets>
std::vector<std::function<void(cudaStream_t)>> row_kernels(std::integer_sequence<int, kSets...>,
                                                           Op op, int rows, int hidden, int sms,
                                                           const KernelArgs& args) {
  return {row_kernel<kLoadsStores[kSets]>(op, rows, hidden, sms, args)...};
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

  std::vector<Case> cases = {latency_floor_case(x, y)};
  const auto sets = std::make_integer_sequence<int, kHintSets>{};
  for (const Op op : {Op::rms_norm, Op::add_rms_norm, Op::layer_norm})
    for (const int hidden : {4096, 5120, 8192})
      for (const int rows : row_counts) {
        const KernelArgs args = row_kernel_args(op, hidden, x, residual, y, sum, params);
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
