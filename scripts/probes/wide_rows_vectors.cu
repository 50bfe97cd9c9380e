// How many 16-byte vectors a thread of the wide-rows kernels (families/wide_rows.cuh) should
// hold on decode rows, where every row's block starts at once and latency, not bandwidth, sets
// the time: RMSNorm, add_rms_norm and LayerNorm in bfloat16 with the decode hints, rows of 4096
// and 8192, 1, 32 and 128 rows, 4 vectors a thread (the plan before) against 2 (and 1),
// event-timed 101 times, cold (L2 evicted as normbench does) and warm. add_rms_norm's s and y
// share one buffer here: the probe times data movement, not values. Not part of normbench: a
// probe for kernels/NOTES.md ("Two vectors a thread on decode rows").
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -o wide_rows_vectors scripts/probes/wide_rows_vectors.cu
//   ./wide_rows_vectors
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/families/wide_rows.cuh"
#include "probe_support.cuh"

namespace {

using normbench::kernels::IdentityEpilogue;
using normbench::kernels::Norm;
using normbench::kernels::WideRowsTensors;

template <class T, Norm kNorm, int kHints, int kVectors>
void launch(void* x, void* w, void* b, void* y, int rows, int hidden, cudaStream_t s) {
  // add_rms_norm's residual is b, and its s shares y's buffer.
  const T* residual = kNorm == Norm::add_rms ? static_cast<const T*>(b) : nullptr;
  const T* bias = kNorm == Norm::centered ? static_cast<const T*>(b) : nullptr;
  T* sum = kNorm == Norm::add_rms ? static_cast<T*>(y) : nullptr;
  const WideRowsTensors<T, T> t{static_cast<const T*>(x), residual, static_cast<const T*>(w), bias,
                                static_cast<T*>(y),       sum};
  const int row_vectors = hidden / 8;
  const int threads = row_vectors / kVectors;
  normbench::kernels::wide_rows_kernel<T, T, kVectors, kNorm, kHints, IdentityEpilogue>
      <<<rows, threads, 0, s>>>(t, IdentityEpilogue{}, row_vectors, 1.0f / hidden, 1e-5f, 0);
}

}  // namespace

int main(int argc, char** argv) {
  // An argument: only the cases whose name contains it, 5 samples each, one round (for ncu).
  const std::string only = argc > 1 ? argv[1] : "";
  const int samples = only.empty() ? 101 : 5;
  const int max_rows = 128, max_hidden = 8192;
  const size_t elements = size_t{max_rows} * max_hidden;

  // N(0,1) values stored as bfloat16.
  std::mt19937 rng(42);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<__nv_bfloat16> as_bf16(elements);
  for (size_t i = 0; i < elements; ++i) {
    const float v = normal(rng);
    as_bf16[i] = __float2bfloat16(v);
  }
  void *x_bf16, *w_bf16, *b_bf16, *y;
  for (void** p : {&x_bf16, &w_bf16, &b_bf16, &y}) CHECK(cudaMalloc(p, elements * 2));
  for (void* p : {x_bf16, w_bf16, b_bf16})
    CHECK(cudaMemcpy(p, as_bf16.data(), elements * 2, cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);

  std::vector<Case> cases;
  // The decode variants' hints (kernels/<op>/row_in_registers.cu), with early parameters.
  constexpr int kLn = normbench::kernels::kWideRowsEarlyParams |
                      normbench::kernels::kWideRowsPrefetchTail |
                      normbench::kernels::kWideRowsOneReduction;
  constexpr int kRms = normbench::kernels::kWideRowsEarlyParams |
                       normbench::kernels::kWideRowsEvictLastLoads |
                       normbench::kernels::kWideRowsStreamStores;
  for (const int hidden : {4096, 8192})
    for (const int rows : {1, 32, 128}) {
      const std::string n = std::to_string(hidden) + " x " + std::to_string(rows);
      cases.push_back({"RMS 4 vec " + n, [=](cudaStream_t s) {
                         launch<__nv_bfloat16, Norm::rms, kRms, 4>(x_bf16, w_bf16, b_bf16, y, rows,
                                                                   hidden, s);
                       }});
      cases.push_back({"RMS 2 vec " + n, [=](cudaStream_t s) {
                         launch<__nv_bfloat16, Norm::rms, kRms, 2>(x_bf16, w_bf16, b_bf16, y, rows,
                                                                   hidden, s);
                       }});
      if (hidden == 4096)
        cases.push_back({"RMS 1 vec " + n, [=](cudaStream_t s) {
                           launch<__nv_bfloat16, Norm::rms, kRms, 1>(x_bf16, w_bf16, b_bf16, y,
                                                                     rows, hidden, s);
                         }});
      cases.push_back({"ADD 4 vec " + n, [=](cudaStream_t s) {
                         launch<__nv_bfloat16, Norm::add_rms, kRms, 4>(x_bf16, w_bf16, b_bf16, y,
                                                                       rows, hidden, s);
                       }});
      cases.push_back({"ADD 2 vec " + n, [=](cudaStream_t s) {
                         launch<__nv_bfloat16, Norm::add_rms, kRms, 2>(x_bf16, w_bf16, b_bf16, y,
                                                                       rows, hidden, s);
                       }});
      cases.push_back({"LN  4 vec " + n, [=](cudaStream_t s) {
                         launch<__nv_bfloat16, Norm::centered, kLn, 4>(x_bf16, w_bf16, b_bf16, y,
                                                                       rows, hidden, s);
                       }});
      cases.push_back({"LN  2 vec " + n, [=](cudaStream_t s) {
                         launch<__nv_bfloat16, Norm::centered, kLn, 2>(x_bf16, w_bf16, b_bf16, y,
                                                                       rows, hidden, s);
                       }});
    }

  std::printf("bfloat16 rows; median, min and max of %d event-timed launches (us)\n", samples);
  print_case_timings(timer, cases, (only.empty() ? 2 : 1), samples, 36, only);
  return 0;
}
