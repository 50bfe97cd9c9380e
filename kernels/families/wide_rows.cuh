// Wide rows held in registers: LLM hidden sizes (1K-32K elements) in bfloat16, float16 or
// float32, for LayerNorm (with or without bias, optionally + GELU * scale), RMSNorm and
// add_rms_norm. One block per row; each thread holds its 16-byte vectors of the row as loaded
// (families/wide_rows_plan.hpp says how many threads and vectors), so x is read from DRAM once
// and y written once: the minimum traffic.
//
//   loads      x (and the residual) every vector of a thread issued back to back: 32-128
//              bytes in flight per thread, the whole row per block; with evict-first or
//              evict-last hints or none (WideRowsHints below: each op takes what measured
//              fastest);
//   add_rms    s = x + residual rounded once to T, stored at once and kept, rounded,
//              in registers for the statistics and y;
//   statistics in float from registers, exact two-pass (centered) or one pass (RMS): sum of
//              (x - shift), then sum of ((x - shift) - delta)^2, each a warp butterfly + one
//              barrier + a butterfly over the warps' partials; the shift (the row's first
//              element) keeps float32 data like 1000 + N(0,1) at 1e-5. LayerNorm of 16-bit
//              data may take the sums and squares in one reduction (kWideRowsOneReduction,
//              guarded; zero-centered or shifted);
//   tail       the last rows prefetched into L2 by earlier blocks (kWideRowsPrefetchTail);
//   output     weight and bias through the read-only path (every row re-reads them: they stay
//              in L1/L2), after the statistics or before them (WideRowsHints; the four-block
//              form's early weight by cp.async into shared memory), y rounded once.
// A grid of one block per row (no grid-stride loop: the next row's loads never wait behind
// this row's stores), each block done after one row.
//
// Assumes row size % (16 / sizeof(T)) == 0 and 16-byte aligned tensors (cudaMalloc), which the
// plan checks or the registry guarantees.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/device/async_copy.cuh"
#include "kernels/device/device_math.cuh"
#include "kernels/device/element_types.cuh"
#include "kernels/device/raw_vectors.cuh"
#include "kernels/device/segment_access.cuh"
#include "kernels/families/launch_helpers.hpp"
#include "kernels/families/wide_rows_plan.hpp"

namespace normbench::kernels {

// The sum over groups of `width` lanes (a power of two, up to 32): every lane of a group gets the
// same bits (a butterfly adds the same pairs in every lane).
__device__ __forceinline__ float wide_rows_lanes_sum(float v, int width) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    if (offset < width) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
__device__ __forceinline__ float wide_rows_warp_sum(float v) {
  return wide_rows_lanes_sum(v, 32);
}

// The fewest lanes (a power of two) that hold every warp's partial of a block sum.
__device__ __forceinline__ int wide_rows_partials_width() {
  const int warps = static_cast<int>(blockDim.x) / 32;
  return warps <= 1 ? 1 : 1 << (32 - __clz(warps - 1));
}

// Sum over the block (blockDim.x a multiple of 32); every thread gets the same bits. `partials`
// (one float per warp) is used once per block: no barrier to protect it afterwards. The second
// level adds the warps' partials over 32 lanes, or with kFewestLanes over
// wide_rows_partials_width(): each group of that many lanes reads the same partials (zeros past the
// last warp), so every lane gets the bits 32 lanes give, without the levels that add only zeros
// (16 and 8 where a block has 8 warps), each a shuffle's latency before the outputs. On the H100
// that took RMSNorm's and add_rms_norm's decode rows 0.03-0.05 us faster (event medians over
// configs/decode.json) and LayerNorm's 0.14 us slower, and still 0.1 us slower with both shuffles
// of each level of its pair sums under one condition (why was not found), so LayerNorm keeps all
// 32 (kernels/NOTES.md).
template <bool kFewestLanes>
__device__ __forceinline__ float wide_rows_block_sum(float v, float* partials) {
  const int lane = threadIdx.x % 32;
  v = wide_rows_warp_sum(v);
  if (lane == 0) partials[threadIdx.x / 32] = v;
  __syncthreads();
  const int width = kFewestLanes ? wide_rows_partials_width() : 32;
  const int warp = lane & (width - 1);
  return wide_rows_lanes_sum(warp < static_cast<int>(blockDim.x / 32) ? partials[warp] : 0.0f,
                             width);
}

// The tail of the grid: once the last rows' blocks start, fewer and fewer rows are left to keep
// DRAM busy, and each of them still waits a full DRAM latency for its row. So the block
// `distance` rows before one of the last `distance` rows prefetches that row into L2, a line a
// thread, without waiting: the last blocks find their rows in L2 and the grid drains sooner.
// `distance` is the rows of kWideRowsPrefetchTailBytes of x (launch_wide_rows), the best of
// 3.3, 6.5 and 13 MB on LayerNorm bfloat16 4096 x 8192 (200, 400 and 800 rows; kernels/NOTES.md):
// farther ahead, lines were evicted before use and read twice. distance 0: nothing.
template <class T>
__device__ __forceinline__ void wide_rows_prefetch_tail(const T* tensor, int64_t row_bytes,
                                                        int distance) {
  const int64_t rows = gridDim.x;
  const int64_t ahead = int64_t{blockIdx.x} + distance;
  if (distance == 0 || ahead >= rows || ahead < rows - distance) return;
  const auto* row = reinterpret_cast<const char*>(tensor) + ahead * row_bytes;
  // Every 128-byte line the row touches (a row starts on a 16-byte boundary).
  const auto first = reinterpret_cast<uintptr_t>(row) & ~uintptr_t{127};
  const auto end = reinterpret_cast<uintptr_t>(row + row_bytes);
  for (uintptr_t line = first + uintptr_t{threadIdx.x} * 128; line < end;
       line += uintptr_t{blockDim.x} * 128)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(line));
}

// Both sums of a pair over the block, as wide_rows_block_sum.
__device__ __forceinline__ float2 wide_rows_block_sum2(float2 v, float2* partials) {
  const int lane = threadIdx.x % 32;
  v.x = wide_rows_warp_sum(v.x);
  v.y = wide_rows_warp_sum(v.y);
  if (lane == 0) partials[threadIdx.x / 32] = v;
  __syncthreads();
  const bool warp_exists = lane < static_cast<int>(blockDim.x / 32);
  return make_float2(wide_rows_warp_sum(warp_exists ? partials[lane].x : 0.0f),
                     wide_rows_warp_sum(warp_exists ? partials[lane].y : 0.0f));
}

template <class T, class P>
struct WideRowsTensors {
  const T* x;
  const T* residual;  // add_rms_norm, else null
  const P* weight;    // null: 1
  const P* bias;      // null: 0
  T* y;
  T* sum;  // add_rms_norm's s, else null
};

// How the kernel moves data and reduces: cache hints on the loads of x and the residual
// (evict-first, or evict-last as torch.compile's row kernels load x) and on the stores of y and
// s (evict-first), the weight and bias loaded before the statistics rather than after, the tail
// prefetch and the one reduction. Each op's variant takes what measured fastest for it on the
// H100 (llm.json, in the same runs as torch.compile, kernels/NOTES.md): RMSNorm and add_rms_norm
// evict-last loads with evict-first stores (1-2% over evict-first loads; why was not measured:
// perhaps y's lines then leave L2 first and are written back steadily), add_rms_norm also early
// parameters (0.5-1%), loaded first on the fewest rows (kWideRowsParamsFirst); the tail prefetch
// was mixed for them (-2% to +1%) and is off. LayerNorm no hints (1-2% over evict-first; evict-last
// gained 0.5-1% on long runs and lost 1% on 4096 x 8192), and for 16-bit data the one reduction
// with the tail prefetch. Early parameters cost LayerNorm 15-25% (registers: fewer blocks per SM).
enum WideRowsHints : int {
  kWideRowsStreamLoads = 1,
  kWideRowsStreamStores = 2,
  kWideRowsEarlyParams = 4,
  kWideRowsEvictLastLoads = 8,  // instead of kWideRowsStreamLoads
  kWideRowsPrefetchTail = 16,   // the last rows prefetched into L2 (wide_rows_prefetch_tail)
  kWideRowsOneReduction = 32,   // LayerNorm of 16-bit data: one guarded reduction (below)
  kWideRowsParamsFirst = 64,    // with kWideRowsEarlyParams: loaded before x, from L2 (below)
  // The two-vector kernel's WideRowsForm, set by launch_wide_rows from the plan, not by an op:
  kWideRowsExactFit = 128,    // row_vectors == blockDim.x * kVectors: no bounds checks
  kWideRowsFourBlocks = 256,  // launch bounds of four blocks of 512 threads an SM
  kWideRowsDefaultHints = kWideRowsStreamLoads | kWideRowsStreamStores,
};

// kWideRowsOneReduction: the sums of d = x - shift and of d^2 in one block reduction, the
// variance as sum(d^2)/n - delta^2 (delta = sum(d)/n, the mean's offset from the shift): one
// barrier and one butterfly less per row, and 40 registers instead of 47 on bfloat16 rows of
// 8192 (6 blocks of 256 per SM instead of 5). The subtraction multiplies the sums' rounding error
// by (1 + delta^2 / variance), so it is used only where delta^2 < kWideRowsOnePassLimit
// variances: at most 17x the exact form's error. A bound, not a measurement: the float sums
// accumulate 40-75 roundings (<= 4.5e-6 relative), so <= 8e-5 in the variance and half that in
// 1/std, far below the rounding of bfloat16 (2^-9) and float16 (2^-11) outputs. Float32 data
// never takes it (its tolerance is 1e-5). Two forms:
// - zero-centered (the parameters after the statistics, up to 4 vectors a thread): no shift, so
//   no load of it and one subtraction an element less in the sums and the outputs. A row whose
//   mean lies 4 or more standard deviations from zero, or a constant row, takes the same sums
//   again centered on that mean (a second pair reduction; the outputs from x - mean - delta).
//   On the H100 this took 0.06-0.34 us of device time off decode.json's LayerNorms at 512 rows
//   and 1% off llm.json's bfloat16 4096 x 8192; where the parameters come early (1-264 rows)
//   the kernel was 0.02-0.04 us slower so (on an H200), and with 8 vectors a thread it took 72
//   registers instead of 64 (kernels/NOTES.md). A bfloat16 row whose float sum overflows (values
//   beyond about 3e38 / n) recenters on an infinite mean and gives NaN, where the shifted form
//   gave a constant such row its bias; a non-constant one, whose squares overflow, neither form
//   normalizes;
// - shifted by the row's first element (the others): rows whose shift lies 4 or more standard
//   deviations from their mean, and constant rows, take the exact second pass.
constexpr float kWideRowsOnePassLimit = 16.0f;

constexpr int64_t kWideRowsPrefetchTailBytes = int64_t{400} * 16384;  // 6.5 MB

// kWideRowsParamsFirst: the early parameters loaded before x by coherent loads
// (RawParams::load_coherent), which ptxas leaves where they are written: the read-only loads of
// the early parameters end up after add_rms_norm's sum s = x + residual, so their L2 round trip
// followed x's DRAM round trip instead of overlapping it. Those loads skip L1, so add_rms_norm
// takes them only on the fewest rows: on the H100 cold 1-row problems of decode.json took
// 0.10-0.24 us less device time, 8 rows 0.03-0.14 less, 32 rows the same, 128 rows 0.06-0.11
// more; warm ones 0-0.05 more (kernels/NOTES.md). RMSNorm's weight loads stay after x's sum in
// ptxas's schedule even so, and gained nothing.
constexpr int64_t kWideRowsParamsFirstMaxRows = 8;

template <class T, class P, int kVectors, Norm kNorm, int kHints, class Epilogue>
__global__ void __launch_bounds__(kVectors == kWideRowsFewVectors ? kWideRowsMaxThreads / 2
                                                                  : kWideRowsMaxThreads,
                                  (kHints & kWideRowsFourBlocks) != 0 ? 4 : 1)
    wide_rows_kernel(WideRowsTensors<T, P> t, Epilogue epilogue, int row_vectors, float inv_n,
                     float eps, int prefetch_distance) {
  using V = RawVector<T>;
  constexpr int kCount = V::kCount;
  __shared__ float partials[2][kWideRowsMaxThreads / 32];
  const int64_t row_start = int64_t{blockIdx.x} * row_vectors * kCount;
  auto vector_index = [&](int j) { return static_cast<int>(threadIdx.x + j * blockDim.x); };
  // Past the row's end (vectors of the last threads of a row that does not fill the block).
  auto outside = [&](int j) {
    return (kHints & kWideRowsExactFit) == 0 && vector_index(j) >= row_vectors;
  };
  auto load = [](const T* p) {
    if constexpr ((kHints & kWideRowsEvictLastLoads) != 0) return V::load_evict_last(p);
    return (kHints & kWideRowsStreamLoads) ? V::load_streaming(p) : V::load_plain(p);
  };
  auto store = [](const V& v, T* p) {
    if constexpr ((kHints & kWideRowsStreamStores) != 0)
      v.store_streaming(p);
    else
      v.store_plain(p);
  };

  static_assert((kHints & kWideRowsParamsFirst) == 0 || (kHints & kWideRowsEarlyParams) != 0,
                "the parameters first are early parameters");
  // The four-block form leaves 32 registers a thread: there RMSNorm's and add_rms_norm's early
  // weight waits in shared memory, copied by cp.async (through L1, which the SM's four blocks
  // share) right after x's loads, instead of in registers. On the H100 that took RMSNorm 512 x
  // 8192 warm 0.26-0.29 us less device time (4.5 -> 4.2) in two A/B calls, the other four-block
  // problems the same or up to 0.15 us faster; copies of every form's parameters were slower
  // elsewhere, LayerNorm's most (kernels/NOTES.md).
  constexpr bool kEarlyShared = (kHints & kWideRowsEarlyParams) != 0 &&
                                (kHints & kWideRowsFourBlocks) != 0 && kNorm != Norm::centered &&
                                sizeof(T) == 2 && sizeof(P) == 2;
  constexpr bool kEarlyRegisters = (kHints & kWideRowsEarlyParams) != 0 && !kEarlyShared;
  __shared__ uint4 shared_weight[kEarlyShared ? kWideRowsMaxThreads * kVectors : 1];
  RawParams<kCount, P> early_weight[kEarlyRegisters ? kVectors : 1];
  RawParams<kCount, P> early_bias[kEarlyRegisters ? kVectors : 1];
  auto load_early_params = [&] {
    if constexpr (kEarlyRegisters) {
#pragma unroll
      for (int j = 0; j < kVectors; ++j) {
        if (outside(j)) continue;
        const int64_t pos = int64_t{vector_index(j)} * kCount;
        if constexpr ((kHints & kWideRowsParamsFirst) != 0) {
          early_weight[j].load_coherent(t.weight, pos);
          if constexpr (kNorm == Norm::centered) early_bias[j].load_coherent(t.bias, pos);
        } else {
          early_weight[j].load(t.weight, pos);
          if constexpr (kNorm == Norm::centered) early_bias[j].load(t.bias, pos);
        }
      }
    }
  };
  if constexpr ((kHints & kWideRowsParamsFirst) != 0) load_early_params();

  V v[kVectors];
#pragma unroll
  for (int j = 0; j < kVectors; ++j)
    v[j].raw = !outside(j) ? load(t.x + row_start + int64_t{vector_index(j)} * kCount).raw
                           : make_uint4(0, 0, 0, 0);

  if constexpr (kEarlyShared) {  // this thread's vectors of the weight, in the background
    if (t.weight) {
#pragma unroll
      for (int j = 0; j < kVectors; ++j)
        if (!outside(j))
          copy_async16<true>(&shared_weight[vector_index(j)],
                             t.weight + int64_t{vector_index(j)} * kCount);
    }
    commit_copies();
  }

  if constexpr ((kHints & kWideRowsPrefetchTail) != 0) {
    const int64_t row_bytes = int64_t{row_vectors} * 16;
    wide_rows_prefetch_tail(t.x, row_bytes, prefetch_distance);
    if constexpr (kNorm == Norm::add_rms)
      wide_rows_prefetch_tail(t.residual, row_bytes, prefetch_distance);
  }

  if constexpr (kNorm == Norm::add_rms) {
    V r[kVectors];
#pragma unroll
    for (int j = 0; j < kVectors; ++j)
      r[j].raw = !outside(j) ? load(t.residual + row_start + int64_t{vector_index(j)} * kCount).raw
                             : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      if (outside(j)) continue;
      float a[kCount], b[kCount];
      v[j].unpack(a);
      r[j].unpack(b);
#pragma unroll
      for (int k = 0; k < kCount; ++k) a[k] += b[k];
      v[j] = V::pack(a);  // s rounded once to T: y is computed from this rounded s
      store(v[j], t.sum + row_start + int64_t{vector_index(j)} * kCount);
    }
  }

  if constexpr ((kHints & kWideRowsParamsFirst) == 0) load_early_params();

  // RMSNorm: shift and delta stay 0 and the expressions below fold to x and x^2.
  constexpr bool kOneReduction =
      kNorm == Norm::centered && sizeof(T) == 2 && (kHints & kWideRowsOneReduction) != 0;
  constexpr bool kZeroCentered =
      kOneReduction && (kHints & kWideRowsEarlyParams) == 0 && kVectors <= kWideRowsFewVectors;
  float shift = 0.0f, delta = 0.0f;
  float mean_square = 0.0f;  // of (x - shift) - delta: the variance, or RMSNorm's mean square
  bool exact_pass = true;
  bool recentered = false;  // kZeroCentered: shift is the one reduction's mean, not 0
  // The sums of d = x - shift (and d^2 for the one reduction) over this thread's vectors.
  const auto add_terms = [&](float& total, float& total_squares) {
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      if (outside(j)) continue;
      float e[kCount];
      v[j].unpack(e);
#pragma unroll
      for (int k = 0; k < kCount; ++k) {
        const float d = e[k] - shift;
        total += d;
        if constexpr (kOneReduction) total_squares = fmaf(d, d, total_squares);
      }
    }
  };
  if constexpr (kZeroCentered) {
    float total = 0.0f, total_squares = 0.0f;
    add_terms(total, total_squares);
    __shared__ float2 pair_partials[kWideRowsMaxThreads / 32];
    const float2 sums = wide_rows_block_sum2(make_float2(total, total_squares), pair_partials);
    delta = sums.x * inv_n;
    mean_square = sums.y * inv_n - delta * delta;
    exact_pass = false;
    // Every thread holds the same bits, so the whole block takes the same branch.
    if (!(delta * delta < kWideRowsOnePassLimit * mean_square)) {  // NaN too
      recentered = true;
      shift = delta;
      total = total_squares = 0.0f;
      add_terms(total, total_squares);
      __shared__ float2 recentered_partials[kWideRowsMaxThreads / 32];
      const float2 centered =
          wide_rows_block_sum2(make_float2(total, total_squares), recentered_partials);
      delta = centered.x * inv_n;
      mean_square = fmaxf(centered.y * inv_n - delta * delta, 0.0f);
    }
  } else if constexpr (kNorm == Norm::centered) {
    shift = load_readonly(t.x + row_start);
    float total = 0.0f, total_squares = 0.0f;
    add_terms(total, total_squares);
    if constexpr (kOneReduction) {
      __shared__ float2 pair_partials[kWideRowsMaxThreads / 32];
      const float2 sums = wide_rows_block_sum2(make_float2(total, total_squares), pair_partials);
      delta = sums.x * inv_n;
      const float one_pass = sums.y * inv_n - delta * delta;
      // Every thread holds the same bits, so the whole block takes the same branch.
      exact_pass = !(delta * delta < kWideRowsOnePassLimit * one_pass);  // NaN: exact
      mean_square = one_pass;
    } else {
      delta = wide_rows_block_sum<false>(total, partials[0]) * inv_n;
    }
  }

  if (exact_pass) {
    float squares = 0.0f;
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      if (outside(j)) continue;
      float e[kCount];
      v[j].unpack(e);
#pragma unroll
      for (int k = 0; k < kCount; ++k) {
        const float d = (e[k] - shift) - delta;
        squares = fmaf(d, d, squares);
      }
    }
    mean_square = wide_rows_block_sum<kNorm != Norm::centered>(squares, partials[1]) * inv_n;
  }
  const float rstd = rsqrtf(mean_square + eps);

  if constexpr (kEarlyShared) wait_copies<0>();  // this thread's own copies: no barrier
  const auto write_outputs = [&](float out_shift) {
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      if (outside(j)) continue;
      const int64_t pos = int64_t{vector_index(j)} * kCount;
      float e[kCount], w[kCount], b[kCount];
      v[j].unpack(e);
      if constexpr (kEarlyShared) {
        RawParams<kCount, P> shared;
        shared.raw[0] = shared_weight[vector_index(j)];
        shared.unpack(t.weight, w, 1.0f);
      } else if constexpr (kEarlyRegisters) {
        early_weight[j].unpack(t.weight, w, 1.0f);
        if constexpr (kNorm == Norm::centered) early_bias[j].unpack(t.bias, b, 0.0f);
      } else {
        load_params<kCount>(t.weight, pos, w, 1.0f);
        if constexpr (kNorm == Norm::centered) load_params<kCount>(t.bias, pos, b, 0.0f);
      }
#pragma unroll
      for (int k = 0; k < kCount; ++k) {
        if constexpr (kNorm == Norm::centered)
          e[k] = epilogue(fmaf(((e[k] - out_shift) - delta) * rstd, w[k], b[k]));
        else
          e[k] = epilogue(e[k] * rstd * w[k]);
      }
      store(V::pack(e), t.y + row_start + pos);
    }
  };
  // Zero-centered rows get their own copy of the outputs with the shift a constant 0: one
  // subtraction an element less where nearly every row goes (kWideRowsOneReduction).
  if (kZeroCentered && !recentered)
    write_outputs(0.0f);
  else
    write_outputs(shift);
}

// The two-vector kernel in `form`: each form's instantiation named once, for the launch and for
// the occupancy query that picks the form (with_latency_form).
template <class T, class P, Norm kNorm, int kHints, class Epilogue>
auto latency_form_kernel(WideRowsForm form) {
  constexpr int kVectors = kWideRowsLatencyVectors;
  if (form == WideRowsForm::exact_fit)
    return wide_rows_kernel<T, P, kVectors, kNorm, kHints | kWideRowsExactFit, Epilogue>;
  if (form == WideRowsForm::four_blocks)
    return wide_rows_kernel<T, P, kVectors, kNorm, kHints | kWideRowsFourBlocks, Epilogue>;
  return wide_rows_kernel<T, P, kVectors, kNorm, kHints, Epilogue>;
}

template <Norm kNorm, int kHints = kWideRowsDefaultHints, class Epilogue>
cudaError_t launch_wide_rows(const ProblemShape& p, const WideRowsPlan& plan,
                             const KernelArgs& args, Epilogue epilogue) {
  return with_element_types(p, [&](auto data, auto param) {
    using T = typename decltype(data)::type;
    using P = typename decltype(param)::type;
    const WideRowsTensors<T, P> t{static_cast<const T*>(args.x),
                                  static_cast<const T*>(args.residual),
                                  static_cast<const P*>(args.weight),
                                  static_cast<const P*>(args.bias),
                                  static_cast<T*>(args.y),
                                  static_cast<T*>(args.sum)};
    const auto blocks = static_cast<unsigned>(p.num_segments);
    const float inv_n = 1.0f / static_cast<float>(p.segment_size);
    const auto eps = static_cast<float>(p.eps);
    auto run = [&](auto kernel) {
      int distance = 0;
      if constexpr ((kHints & kWideRowsPrefetchTail) != 0) {
        int per_sm = 0, sm_count = 0, device = 0;
        cudaError_t error = cudaGetDevice(&device);
        if (error == cudaSuccess)
          error = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
        if (error == cudaSuccess)
          error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, plan.threads, 0);
        if (error != cudaSuccess) return error;
        // Rows that fit in one wave are all loading from the start: nothing to prefetch.
        const int64_t resident = int64_t{per_sm} * sm_count;
        const int64_t row_bytes = int64_t{plan.row_vectors} * 16;
        if (p.num_segments > resident)
          distance = static_cast<int>(
              std::min<int64_t>(ceil_div(kWideRowsPrefetchTailBytes, row_bytes), p.num_segments));
      }
      kernel<<<blocks, plan.threads, 0, args.stream>>>(t, epilogue, plan.row_vectors, inv_n, eps,
                                                       distance);
      return cudaGetLastError();
    };
    if (plan.vectors_per_thread == kWideRowsLatencyVectors)
      return run(latency_form_kernel<T, P, kNorm, kHints, Epilogue>(plan.form));
    if (plan.vectors_per_thread == kWideRowsFewVectors)
      return run(wide_rows_kernel<T, P, kWideRowsFewVectors, kNorm, kHints, Epilogue>);
    return run(wide_rows_kernel<T, P, kWideRowsManyVectors, kNorm, kHints, Epilogue>);
  });
}

// The plan of a `<op>.row_in_registers` variant laid out as `rows`: declined with its reason, or
// launching the kernel of kNorm with `epilogue`.
template <Norm kNorm, int kHints, class Epilogue>
KernelPlan plan_wide_rows_launch(const ProblemShape& p, const WideRowsPlan& rows,
                                 Epilogue epilogue) {
  if (!rows.unsupported.empty()) return KernelPlan::declined(rows.unsupported);
  KernelPlan plan;
  plan.launch = [p, rows, epilogue](const KernelArgs& args) {
    return launch_wide_rows<kNorm, kHints>(p, rows, args, epilogue);
  };
  return plan;
}

// plan_wide_rows_launch with the plan of rows that need not start at once.
template <Norm kNorm, int kHints = kWideRowsDefaultHints, class Epilogue>
KernelPlan plan_wide_rows_variant(const ProblemShape& p, Epilogue epilogue) {
  return plan_wide_rows_launch<kNorm, kHints>(p, plan_wide_rows(p), epilogue);
}

// At most `blocks_per_sm` rows an SM: every row's block starts at once, and the time is
// latency, not bandwidth (a decoder's 1-512 tokens).
inline bool wide_rows_start_at_once(const ProblemShape& p, const DeviceCaps& device,
                                    int blocks_per_sm) {
  return p.num_segments <= int64_t{blocks_per_sm} * device.sm_count;
}

// `rows` with the form of its two-vector kernel (WideRowsForm) picked from the occupancy the
// device reports for each form's kernel at rows.threads: the first that still holds every row's
// block at once. Where the device cannot say (no GPU: the CPU tests), the guarded form.
template <Norm kNorm, int kHints, class Epilogue>
WideRowsPlan with_latency_form(const ProblemShape& p, WideRowsPlan rows, const DeviceCaps& device) {
  if (!rows.unsupported.empty() || rows.vectors_per_thread != kWideRowsLatencyVectors ||
      device.sm_count <= 0)
    return rows;
  int exact_fit_per_sm = 0, guarded_per_sm = 0;
  const cudaError_t error = with_element_types(p, [&](auto data, auto param) {
    using T = typename decltype(data)::type;
    using P = typename decltype(param)::type;
    const auto per_sm = [&](WideRowsForm form, int* blocks) {
      return cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          blocks, latency_form_kernel<T, P, kNorm, kHints, Epilogue>(form), rows.threads, 0);
    };
    cudaError_t e = per_sm(WideRowsForm::guarded, &guarded_per_sm);
    if (e == cudaSuccess && rows.threads * kWideRowsLatencyVectors == rows.row_vectors)
      e = per_sm(WideRowsForm::exact_fit, &exact_fit_per_sm);
    return e;
  });
  if (error != cudaSuccess) {
    (void)cudaGetLastError();  // not left for the next launch's check to find
    return rows;
  }
  rows.form = pick_latency_form(ceil_div(p.num_segments, device.sm_count), exact_fit_per_sm,
                                guarded_per_sm);
  return rows;
}

// plan_wide_rows_variant with kHints, and where the rows start at once:
// - early parameters: the weight and bias loaded with x instead of after the statistics, so
//   that their DRAM round trip overlaps x's instead of following the reductions (add_rms_norm's
//   early parameters took 5.1 us on 1-32 rows of 4096 on the H100 where RMSNorm without them
//   took 6.2; configs/decode.json, kernels/NOTES.md). Their cost is registers, and so blocks an
//   SM: up to two blocks an SM that does not matter; RMSNorm (a weight only) gained up to 4
//   blocks an SM as well (-3% to -10% on 512 rows), LayerNorm (weight and bias) lost there (up
//   to +23%);
// - no tail prefetch where the parameters come early: those rows all start at once, so the
//   launch prefetches nothing (distance 0), yet the prefetch's code alone cost LayerNorm up to
//   0.2 us on the H100 (decode.json's 16-bit LayerNorms of 1-8 rows 0.05-0.25 us faster without
//   it, those of 32-128 rows the same within 0.1; kernels/NOTES.md);
// - kWideRowsLatencyVectors up to four blocks an SM (measured on 1-128 rows, and on the 24
//   512-row problems of configs/decode.json: 0.14-0.59 us faster than four vectors a thread on
//   22 of them, the same on add_rms_norm's 8192, and eight vectors slower on all;
//   kernels/NOTES.md), in the form with_latency_form picks.
template <Norm kNorm, int kHints = kWideRowsDefaultHints, class Epilogue>
KernelPlan plan_wide_rows_variant(const ProblemShape& p, const DeviceCaps& device,
                                  Epilogue epilogue) {
  const WideRowsPlan rows = plan_wide_rows(p, wide_rows_start_at_once(p, device, 4));
  if (wide_rows_start_at_once(p, device, kNorm == Norm::rms ? 4 : 2)) {
    constexpr int kEarly = (kHints | kWideRowsEarlyParams) & ~kWideRowsPrefetchTail;
    return plan_wide_rows_launch<kNorm, kEarly>(
        p, with_latency_form<kNorm, kEarly, Epilogue>(p, rows, device), epilogue);
  }
  return plan_wide_rows_launch<kNorm, kHints>(
      p, with_latency_form<kNorm, kHints, Epilogue>(p, rows, device), epilogue);
}

}  // namespace normbench::kernels
