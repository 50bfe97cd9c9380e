// Why LayerNorm's row_in_registers took about 1 us longer on bfloat16 decode rows than on
// float16 ones (configs/decode.json; kernels/NOTES.md, "The bfloat16 decode gap, found"; fixed
// by widening bfloat16 with shifts, kernels/device/raw_vectors.cuh): the same kernel template
// instantiated for both types, launched on the same buffers, so that only the code or only the
// data changes between two lines. Data: N(0,1) stored as bfloat16 or as float16 bits (each read
// by both kernels: the other type's bits are finite values of a different size). Each launch is
// event-timed 101 times, cold (L2 evicted as normbench does) and warm, like latency_floor.cu.
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -o gap scripts/probes/wide_rows_dtype_gap.cu
//   ./gap
#include <cuda_bf16.h>
#include <cuda_fp16.h>
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

// The decode variant of layer_norm.row_in_registers for 16-bit data: early parameters, the tail
// prefetch and the one reduction (kernels/layer_norm/row_in_registers.cu).
constexpr int kDecodeHints = normbench::kernels::kWideRowsEarlyParams |
                             normbench::kernels::kWideRowsPrefetchTail |
                             normbench::kernels::kWideRowsOneReduction;

template <class T, Norm kNorm, int kHints>
void launch(void* x, void* w, void* b, void* y, int rows, int hidden, cudaStream_t s) {
  const WideRowsTensors<T, T> t{
      static_cast<const T*>(x), nullptr,
      static_cast<const T*>(w), kNorm == Norm::centered ? static_cast<const T*>(b) : nullptr,
      static_cast<T*>(y),       nullptr};
  const int row_vectors = hidden / 8;
  const int threads = row_vectors / 4;  // 4 vectors a thread, as the plan took for <= 8192
  normbench::kernels::wide_rows_kernel<T, T, 4, kNorm, kHints, IdentityEpilogue>
      <<<rows, threads, 0, s>>>(t, IdentityEpilogue{}, row_vectors, 1.0f / hidden, 1e-5f, 0);
}

}  // namespace

int main(int argc, char** argv) {
  // An argument: only the cases whose name contains it, 5 samples each, one round (for ncu).
  const std::string only = argc > 1 ? argv[1] : "";
  const int samples = only.empty() ? 101 : 5;
  const int max_rows = 32, hidden = 4096;
  const size_t elements = size_t{max_rows} * hidden;

  // The same N(0,1) values stored as bfloat16 and as float16.
  std::mt19937 rng(42);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<__nv_bfloat16> as_bf16(elements);
  std::vector<__half> as_fp16(elements);
  for (size_t i = 0; i < elements; ++i) {
    const float v = normal(rng);
    as_bf16[i] = __float2bfloat16(v);
    as_fp16[i] = __float2half(v);
  }
  void *x_bf16, *x_fp16, *w_bf16, *w_fp16, *b_bf16, *b_fp16, *y;
  for (void** p : {&x_bf16, &x_fp16, &w_bf16, &w_fp16, &b_bf16, &b_fp16, &y})
    CHECK(cudaMalloc(p, elements * 2));
  for (void* p : {x_bf16, w_bf16, b_bf16})
    CHECK(cudaMemcpy(p, as_bf16.data(), elements * 2, cudaMemcpyHostToDevice));
  for (void* p : {x_fp16, w_fp16, b_fp16})
    CHECK(cudaMemcpy(p, as_fp16.data(), elements * 2, cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);

  std::vector<Case> cases;
  for (const int rows : {1, 32}) {
    for (const bool bf16_data : {true, false}) {
      void* x = bf16_data ? x_bf16 : x_fp16;
      void* w = bf16_data ? w_bf16 : w_fp16;
      void* b = bf16_data ? b_bf16 : b_fp16;
      const std::string data = std::string(bf16_data ? "bf16 data" : "fp16 data") + ", " +
                               std::to_string(rows) + " rows";
      cases.push_back({"LN   bf16 kernel, " + data, [=](cudaStream_t s) {
                         launch<__nv_bfloat16, Norm::centered, kDecodeHints>(x, w, b, y, rows,
                                                                             hidden, s);
                       }});
      cases.push_back({"LN   fp16 kernel, " + data, [=](cudaStream_t s) {
                         launch<__half, Norm::centered, kDecodeHints>(x, w, b, y, rows, hidden, s);
                       }});
      cases.push_back({"RMS  bf16 kernel, " + data, [=](cudaStream_t s) {
                         launch<__nv_bfloat16, Norm::rms,
                                normbench::kernels::kWideRowsEarlyParams |
                                    normbench::kernels::kWideRowsEvictLastLoads |
                                    normbench::kernels::kWideRowsStreamStores>(x, w, b, y, rows,
                                                                               hidden, s);
                       }});
      cases.push_back({"RMS  fp16 kernel, " + data, [=](cudaStream_t s) {
                         launch<__half, Norm::rms,
                                normbench::kernels::kWideRowsEarlyParams |
                                    normbench::kernels::kWideRowsEvictLastLoads |
                                    normbench::kernels::kWideRowsStreamStores>(x, w, b, y, rows,
                                                                               hidden, s);
                       }});
    }
  }
  // The decode variant's hints one by one (kernels/families/wide_rows.cuh, WideRowsHints), on
  // one row of bfloat16 data: does any of them make the gap?
  auto add_hints = [&](auto hints) {
    constexpr int kHints = decltype(hints)::value;
    const std::string name = "LN hints " + std::to_string(kHints);
    cases.push_back({name + " bf16 kernel", [=](cudaStream_t s) {
                       launch<__nv_bfloat16, Norm::centered, kHints>(x_bf16, w_bf16, b_bf16, y, 1,
                                                                     hidden, s);
                     }});
    cases.push_back({name + " fp16 kernel", [=](cudaStream_t s) {
                       launch<__half, Norm::centered, kHints>(x_bf16, w_bf16, b_bf16, y, 1, hidden,
                                                              s);
                     }});
  };
  add_hints(std::integral_constant<int, 0>{});
  add_hints(std::integral_constant<int, 4>{});
  add_hints(std::integral_constant<int, 32>{});
  add_hints(std::integral_constant<int, 36>{});
  add_hints(std::integral_constant<int, 2>{});

  std::printf("hidden %d; median, min and max of %d event-timed launches (us)\n", hidden, samples);
  print_case_timings(timer, cases, (only.empty() ? 2 : 1), samples, 36, only);
  return 0;
}
