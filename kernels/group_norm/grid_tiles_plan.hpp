// Host side of grid_tiles_kernel.cuh (group_norm.grid_tiles): how a GroupNorm problem of any
// format is cut into tiles of contiguous memory, the shared memory the kernel holds them in,
// the workspace, and the shapes it declines. Plain C++: planning makes no CUDA call.
//
// A tile is contiguous memory of one sample:
//   channels-last: `tile_extent` spatial rows x all C channels; every element's channel gives
//                  its group, so a tile has a partial for each of the sample's groups;
//   NCHW:          `tile_extent` elements of one group (a group is contiguous there).
// Part = what the tiles of one statistic cover: a sample (channels-last) or a group (NCHW).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/problem_shape.hpp"
#include "kernels/registry.hpp"

namespace normbench::kernels {

constexpr int kGridTilesThreads = 512;
constexpr int kGridTilesWarps = kGridTilesThreads / 32;
// Two blocks per SM: while one block reduces or waits, the other keeps loads in flight.
constexpr int kGridTilesBlocksPerSm = 2;
// Row lanes of a channels-last tile: the per-channel sums of at most this many threads are
// added per channel, in a fixed order.
constexpr int kGridTilesMaxRowLanes = 32;
// Tiles of at most 128 KB keep the per-thread float sums short (<= 64 values) and near the
// shared memory a block holds; at least 16 KB keeps small problems from paying more in merging
// partials than in moving data.
constexpr int64_t kGridTilesMaxTileBytes = int64_t{128} << 10;
constexpr int64_t kGridTilesMinTileBytes = int64_t{16} << 10;
// Kept back from each block's share of the SM's shared memory (1 KB the hardware reserves per
// block, 1 KB margin).
constexpr size_t kGridTilesSmemReserve = 2048;

#if defined(__CUDACC__)
#define NORMBENCH_HOST_DEVICE __host__ __device__
#else
#define NORMBENCH_HOST_DEVICE
#endif

// What the kernel needs to walk the tiles; plain integers, passed to the device as they are.
struct GridTilesGeometry {
  bool channels_last = false;
  int vec = 1;  // elements per access: 16 bytes' worth, or 1 where rows are not 16-byte aligned
  int64_t samples = 0;
  int64_t channels = 0;
  int64_t groups = 0;
  int64_t group_channels = 0;
  int64_t spatial = 0;
  int64_t group_elements = 0;  // group_channels * spatial
  int64_t tiles_per_part = 0;  // partials per group: tiles per sample or per group
  int64_t tile_extent = 0;     // spatial rows (channels-last) or elements (NCHW) per tile
  int64_t tiles = 0;           // parts * tiles_per_part
  int column_threads = 0;      // channels-last: threads across a row's channels / vec accesses
  int row_lanes = 0;           // channels-last: threads down the rows of one column
  int hold_slots = 0;          // accesses each thread keeps in shared memory between phases
  int64_t scratch_bytes = 0;   // shared memory for reductions and coefficients, then held data

  // Accesses thread `thread` makes in `tile`: the statistics and the normalization make the
  // same ones in the same order, so the first hold_slots of a thread's accesses over its tiles
  // are the ones held. The normalization walks a block's tiles in reverse and finds where each
  // tile's accesses start from these counts.
  NORMBENCH_HOST_DEVICE int64_t thread_chunks(int64_t tile, int thread) const {
    const int64_t part = tile % tiles_per_part;
    if (channels_last) {
      const int64_t left = spatial - part * tile_extent;
      const int64_t rows = left < tile_extent ? left : tile_extent;
      const int lane_col = thread % column_threads, lane_row = thread / column_threads;
      if (lane_row >= row_lanes || lane_row >= rows) return 0;
      return ((channels / vec - 1 - lane_col) / column_threads + 1) *
             ((rows - 1 - lane_row) / row_lanes + 1);
    }
    const int64_t left = group_elements - part * tile_extent;
    const int64_t len = left < tile_extent ? left : tile_extent;
    const int64_t first = int64_t{thread} * vec, stride = int64_t{kGridTilesThreads} * vec;
    return first < len ? (len - 1 - first) / stride + 1 : 0;
  }
};

struct GridTilesPlan {
  GridTilesGeometry geometry;
  int element_bytes = 4;
  bool cooperative = false;   // tiles_per_part > 1: statistics cross blocks (grid barriers)
  int sm_count = 0;           // a cooperative grid fills these SMs
  size_t smem_bytes = 0;      // dynamic shared memory per block: scratch + held accesses
  size_t partials_bytes = 0;  // workspace: float2 (sum, sum of squares) per group and tile
  // Workspace after the partials: three float arrays per (sample, channel), scale, offset and
  // shift (y = (x - shift) * scale + offset), each coefficient_array_bytes long.
  size_t coefficients_offset = 0;
  size_t coefficient_array_bytes = 0;
  size_t workspace_bytes = 0;
  std::string unsupported;  // non-empty: why the problem cannot run this way
};

GridTilesPlan plan_grid_tiles(const ProblemShape& p, const DeviceCaps& device);

}  // namespace normbench::kernels
