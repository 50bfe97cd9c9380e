// Long LayerNorm rows with weight and bias, in two phases, so that weight and bias are read
// from DRAM once instead of once per row: the shape of problem A (16 rows of 4M, weight and
// bias 16 MB each). Three launches:
//   1. tile_stats: one block per 16K-element tile of a row computes the tile's (count, mean,
//      M2) by a two-pass in registers, relative to the row's first element;
//   2. merge_row_stats: one block per row merges its tiles' partials in a fixed order;
//   3. normalize_columns: one block per 4096-column tile keeps that tile of weight and bias in
//      registers and walks the rows, last row first: phase 1 read the last rows last, so part
//      of them is still in L2.
// Traffic: x twice, y once, weight and bias once (3x + 2x/rows) against the single-read split
// kernel's x once, y once and weight and bias once per row (4x). Without affine the split
// kernel moves less (2x) and wins. Assumes row size % 4 == 0.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/device/device_math.cuh"
#include "kernels/device/segment_sync.cuh"
#include "kernels/device/vector_io.cuh"
#include "kernels/families/launch_helpers.hpp"
#include "kernels/families/split_plan.hpp"

namespace normbench::kernels {

constexpr int kTileThreads = 512;
constexpr int kTileVecsPerThread = 8;
constexpr int64_t kTileVecs = kTileThreads * kTileVecsPerThread;  // 16K elements
constexpr int kColumnThreads = 256;
constexpr int kColumnVecsPerThread = 4;
constexpr int64_t kColumnVecs = kColumnThreads * kColumnVecsPerThread;  // 4096 columns

// Phases 1 and 2 (two_phase_rows.cu): fills stats[row] for every row. `workspace` has
// two_phase_workspace() bytes.
cudaError_t launch_row_statistics(const ProblemShape& p, const KernelArgs& args,
                                  SegmentStats** stats);

template <class Epilogue>
__global__ void __launch_bounds__(kColumnThreads)
    normalize_columns_kernel(const float* __restrict__ x, float* __restrict__ y, RowParams params,
                             Epilogue epilogue, int64_t num_rows, int64_t row_size,
                             int64_t rows_per_block, const SegmentStats* __restrict__ stats) {
  const int64_t vecs = row_size / 4;
  const int64_t column_tiles = (vecs + kColumnVecs - 1) / kColumnVecs;
  const int64_t first = (blockIdx.x % column_tiles) * kColumnVecs;
  const int64_t row_begin = (blockIdx.x / column_tiles) * rows_per_block;
  const int64_t row_end = min(num_rows, row_begin + rows_per_block);
  const auto row_params = params.for_segment(0);

  WeightBias4 wb[kColumnVecsPerThread];  // this tile of weight and bias, read once
#pragma unroll
  for (int j = 0; j < kColumnVecsPerThread; ++j) {
    const int64_t i = first + j * kColumnThreads + threadIdx.x;
    if (i < vecs) wb[j] = row_params.at4(i * 4);
  }
  for (int64_t row = row_end - 1; row >= row_begin; --row) {  // last rows first: still in L2
    const SegmentStats s = stats[row];
    const float4* xr = reinterpret_cast<const float4*>(x + row * row_size);
    float4* yr = reinterpret_cast<float4*>(y + row * row_size);
    float4 v[kColumnVecsPerThread];
#pragma unroll
    for (int j = 0; j < kColumnVecsPerThread; ++j) {
      const int64_t i = first + j * kColumnThreads + threadIdx.x;
      if (i < vecs) v[j] = load_streaming(xr + i);
    }
#pragma unroll
    for (int j = 0; j < kColumnVecsPerThread; ++j) {
      const int64_t i = first + j * kColumnThreads + threadIdx.x;
      if (i < vecs) store_streaming(yr + i, finish4(v[j], s, wb[j], epilogue));
    }
  }
}

inline int64_t tiles_per_row(const ProblemShape& p) {
  return (p.segment_size / 4 + kTileVecs - 1) / kTileVecs;
}

inline std::optional<std::string> two_phase_unsupported(const ProblemShape& p, const DeviceCaps&) {
  if (p.segment_size % 4 != 0) return "row size is not a multiple of 4 (16-byte rows)";
  if (p.num_segments * tiles_per_row(p) > int64_t{0x7fffffff}) return "more than 2^31-1 tiles";
  return std::nullopt;
}

// The workspace holds the tile partials, then the per-row statistics from this offset.
inline size_t two_phase_stats_offset(const ProblemShape& p) {
  return static_cast<size_t>(
      ceil_div(p.num_segments * tiles_per_row(p) * static_cast<int64_t>(sizeof(SlicePartial)), 16) *
      16);
}

inline size_t two_phase_workspace(const ProblemShape& p, const DeviceCaps&) {
  return two_phase_stats_offset(p) + static_cast<size_t>(p.num_segments) * sizeof(SegmentStats);
}

template <class Epilogue>
cudaError_t launch_two_phase_rows(const ProblemShape& p, const DeviceCaps& device,
                                  const KernelArgs& args, Epilogue epilogue) {
  SegmentStats* stats = nullptr;
  if (const cudaError_t error = launch_row_statistics(p, args, &stats); error != cudaSuccess)
    return error;
  // Enough blocks to fill the device: split the rows too when a row has few column tiles.
  const int64_t column_tiles = ceil_div(p.segment_size / 4, kColumnVecs);
  const int64_t wanted = int64_t{device.sm_count > 0 ? device.sm_count : 132} * 8;
  const int64_t row_groups =
      std::min(p.num_segments, std::max<int64_t>(1, ceil_div(wanted, column_tiles)));
  const int64_t rows_per_block = ceil_div(p.num_segments, row_groups);
  const int64_t blocks = column_tiles * ceil_div(p.num_segments, rows_per_block);
  normalize_columns_kernel<<<static_cast<unsigned>(blocks), kColumnThreads, 0, args.stream>>>(
      x_f32(args), y_f32(args), row_params(args), epilogue, p.num_segments, p.segment_size,
      rows_per_block, stats);
  return cudaGetLastError();
}

}  // namespace normbench::kernels
