// Host side of cluster_tiles_kernel.cuh (group_norm.cluster_tiles): how a channels-last
// GroupNorm is cut over thread block clusters, and the shapes it declines. Plain C++: planning
// makes no CUDA call.
//
// A cluster owns one chunk of whole groups of one sample: `chunk_groups` groups, K channels,
// which lie next to each other at every spatial position (K * element size bytes, a multiple
// of 16). Its `cluster` blocks split the sample's positions; a block's threads form
// `row_lanes` rows of `column_vectors` columns, thread (lane, column) holding the 16-byte
// vector `column` of positions lane, lane + row_lanes, ... (at most `vectors_per_thread`) in
// registers. The block's partial sums per group meet the cluster's others through distributed
// shared memory, so x is read once and y written once, in one launch, with no grid barrier
// and no workspace: a cluster needs nothing from another, so the grid may take several waves.
//
// group_norm.grid_registers (plan_grid_registers) cuts the same way, but a chunk's blocks need
// not form a cluster: any number of them, anywhere on the chip, meet through a workspace and one
// grid barrier, so every block of the grid must be resident at once (one wave).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/problem_shape.hpp"
#include "kernels/registry.hpp"

namespace normbench::kernels {

// The register-held vectors a thread may take (the kernel is instantiated for each).
// 12 between 8 and 16: where 8 vectors a thread need more than kClusterTilesMaxThreads, 12
// keep more warps than 16 (SD 1.5 in clusters of 16, 256 positions a block: 22 lanes instead
// of 16; 13.5 -> 12.8 us on the H100). 3 and 6 as well made the model pick a worse cut of
// 2 x 640 x 32 x 32 (9.7 -> 14.7 us; kernels/NOTES.md).
inline constexpr int kClusterTilesVectorCounts[] = {1, 2, 4, 8, 12, 16};
constexpr int kClusterTilesMaxVectors = 16;
constexpr int kClusterTilesMaxThreads = 512;
// The narrowest chunk of a row (unless the row is narrower): DRAM moves whole bursts, so chunks
// of 16-80 bytes read at each position, a row (C channels) apart, moved x at 0.27 (16 bytes),
// 0.60 (32 bytes) and 0.4-0.5 TB/s (80 bytes) on the H100 (kernels/NOTES.md).
constexpr int64_t kClusterTilesMinChunkBytes = 256;
// Chunks down to 160 bytes, but only to take the chosen plan's blocks in clusters of half the
// size or less at no worse an estimate: on the H100 2 x 640 x 32 x 32 float16 took 8.7 us in
// clusters of 8 (160-byte chunks) against 9.0 in clusters of 16, SDXL's 2 x 640 x 64 x 64
// bfloat16 19.4 against 21.1, SD 1.5's 2 x 320 x 64 x 64 11.5 against 12.3; where narrower
// chunks meant more blocks instead (SD 1.5 in 128 blocks), they took 15.3 (kernels/NOTES.md).
constexpr int64_t kClusterTilesNarrowChunkBytes = 160;
// Clusters of up to 16 blocks: sizes above 8 are non-portable (an opt-in at launch; sm_90 GPCs
// have 16-18 SMs), and the largest chunks of the diffusion shapes need 16 SMs' registers.
constexpr int kClusterTilesMaxCluster = 16;
// The grid is cluster x chunks a sample x samples blocks: CUDA's limit on the last two.
constexpr int64_t kClusterTilesMaxGridExtent = 65535;
// group_norm.grid_registers beyond 16 vectors a thread: 12 in registers and 8 or 16 more in
// shared memory (x of up to 30 MB held on an H100's 132 SMs), in chunks of whole rows only, so
// that each slab of a block's shared vectors is contiguous in x and lands by one bulk copy (on
// the H100 SDXL's 2 x 320 x 128 x 128 float16 took 21.1 us so against 21.7 in chunks of half a
// row, a copy for each position). Its blocks take one SM each (up to 128 registers a thread): on
// the H100, two blocks an SM at 64 registers (with spills) were slower, and fewer registers with
// more shared memory slower or no faster (kernels/NOTES.md).
struct HeldVectors {
  int registers;
  int shared;
};
inline constexpr HeldVectors kGridRegistersSharedVectors[] = {{12, 8}, {12, 16}};

struct ClusterTilesPlan {
  std::string unsupported;  // empty: supported
  int chunk_groups = 0;
  int chunk_channels = 0;      // K = chunk_groups * channels per group
  int column_vectors = 0;      // K * element size / 16
  int row_lanes = 0;           // threads per column
  int threads = 0;             // column_vectors * row_lanes
  int vectors_per_thread = 0;  // in registers: one of kClusterTilesVectorCounts
  int shared_vectors = 0;      // and in shared memory (grid_barrier only)
  int cluster = 0;             // blocks per cluster (grid_barrier: blocks per chunk)
  int64_t positions_per_block = 0;
  int64_t blocks = 0;          // samples * chunks * cluster
  size_t shared_bytes = 0;     // dynamic: held vectors, the per-thread sums of the reduction
  double estimated_us = 0;     // of the cost model that chose this plan
  bool grid_barrier = false;   // the chunk's blocks meet through the workspace, not a cluster
  size_t workspace_bytes = 0;  // grid_barrier: a float2 partial per block and group of a chunk
};

// The kernel's shared memory beyond ClusterTilesPlan::shared_bytes: each channel's float2 totals
// (later its group's coefficients), then the float2 partials of each group: the cluster's (one
// slot per rank, written by the blocks of the cluster) or, where the grid's kernel holds vectors
// in shared memory, the chunk's, staged from the workspace after the grid barrier (one more on
// each side for the 16-byte copies' alignment: the workspace of such plans holds a padding of
// 16 bytes after the last chunk's).
inline size_t cluster_tiles_exchange_bytes(int chunk_channels, int chunk_groups, int cluster,
                                           bool grid_barrier, int shared_vectors) {
  const size_t partials = static_cast<size_t>(chunk_groups) * static_cast<size_t>(cluster);
  const size_t slots = !grid_barrier ? partials : shared_vectors > 0 ? partials + 2 : 0;
  return 2 * sizeof(float) * (static_cast<size_t>(chunk_channels) + slots);
}
constexpr size_t kGridRegistersWorkspacePadding = 16;

// The best plan for `p` on a device of `sm_count` SMs, or the reason none exists. Considers
// every chunk of whole groups whose channels are a multiple of 16 bytes and every cluster size
// 1-16 (chunks of at least kClusterTilesMinChunkBytes), and picks the lowest time of a simple
// model: the waves the blocks take (occupancy from threads and registers per thread), each moving
// its bytes at the SM's share of the copy bandwidth, plus a fixed cost for a cluster barrier.
// Then the smallest clusters with the same number of blocks and no worse an estimate
// (kClusterTilesNarrowChunkBytes).
ClusterTilesPlan plan_cluster_tiles(const ProblemShape& p, int sm_count);

// The best plan for `p` with the chunk's blocks anywhere in one wave of the grid (the grid
// barrier needs every block resident): every chunk of at least kClusterTilesMinChunkBytes and
// every number of blocks per chunk whose grid fits the device at the model's occupancy, by the
// same model with a grid barrier's cost.
ClusterTilesPlan plan_grid_registers(const ProblemShape& p, int sm_count);

}  // namespace normbench::kernels
