#include "kernels/group_norm/cluster_tiles_plan.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace normbench::kernels {
namespace {

// The model's constants (H100-sized; the choice only needs their ratios to be right): the copy
// bandwidth, the most one SM moves (about twice its share of the copy bandwidth, from the
// memory it keeps in flight), and the cost of a cluster barrier with the exchange around it.
constexpr double kBytesPerUs = 3.0e6;
constexpr double kSmBytesPerUsShare = 2.0;  // times kBytesPerUs / sm_count
constexpr double kClusterBarrierUs = 0.5;
constexpr double kGridBarrierUs = 1.5;
constexpr double kBlockReductionUs = 0.3;

int round_up(int v, int to) {
  return (v + to - 1) / to * to;
}

// Registers per thread: the held vectors (4 each) and, per channel of a vector, the two sums,
// the shift, scale and offset, over a base for addresses and loop state. An estimate for the
// occupancy of the model, not a limit of the kernel.
int registers_per_thread(int vectors, int channels_per_vector) {
  return 32 + 4 * vectors + 5 * channels_per_vector;
}

// The vectors a thread may hold, fewest first: in registers only, then (grid_barrier) with
// more in shared memory.
std::vector<HeldVectors> held_vector_counts(bool grid_barrier) {
  std::vector<HeldVectors> counts;
  for (int vectors : kClusterTilesVectorCounts) counts.push_back({vectors, 0});
  if (grid_barrier)
    for (const HeldVectors held : kGridRegistersSharedVectors) counts.push_back(held);
  return counts;
}

// Calls visit(plan) for every chunk of whole groups of at least min_chunk_bytes (16-byte
// multiples) and every cluster size (grid_barrier: every number of blocks per chunk whose grid
// is one wave), with the fewest vectors a thread that fit (vectors in shared memory: whole-row
// chunks only) and the model's estimate.
template <class Visit>
void for_each_plan(const ProblemShape& p, int sm_count, int64_t min_chunk_bytes, bool grid_barrier,
                   Visit visit) {
  const int64_t size = dtype_bytes(p.dtype);
  const int64_t group_channels = p.channels / p.groups;
  const int channels_per_vector = static_cast<int>(16 / size);
  for (int64_t groups = 1; groups <= p.groups; ++groups) {
    if (p.groups % groups != 0) continue;
    const int64_t chunk_bytes = groups * group_channels * size;
    if (chunk_bytes % 16 != 0 || chunk_bytes / 16 > kClusterTilesMaxThreads) continue;
    if (chunk_bytes < std::min<int64_t>(min_chunk_bytes, p.channels * size)) continue;
    if (p.groups / groups > kClusterTilesMaxGridExtent) continue;  // chunks a sample
    const int columns = static_cast<int>(chunk_bytes / 16);
    // The grid barrier's blocks take one SM each: at most sm_count of them.
    const int64_t max_ranks =
        grid_barrier ? std::min<int64_t>(p.spatial, sm_count) : kClusterTilesMaxCluster;
    for (int cluster = 1; cluster <= max_ranks;
         cluster = grid_barrier ? cluster + 1 : cluster * 2) {
      const int64_t positions = ceil_div(p.spatial, cluster);
      // No block without positions (a rank count that ceil_div cannot tell from a smaller one).
      if (grid_barrier && ceil_div(p.spatial, positions) != cluster) continue;
      for (const HeldVectors held : held_vector_counts(grid_barrier)) {
        // Vectors in shared memory only where the chunk is the whole row (the kernel's one bulk
        // copy a slab needs the slab contiguous in x).
        if (held.shared > 0 && chunk_bytes != p.channels * size) continue;
        const int vectors = held.registers;
        const int64_t lanes = ceil_div(positions, held.registers + held.shared);
        if (lanes * columns > kClusterTilesMaxThreads) continue;
        const int threads = round_up(static_cast<int>(lanes) * columns, 32);
        const int registers = registers_per_thread(vectors, channels_per_vector);
        const size_t shared =
            static_cast<size_t>(threads) * (size_t{2} * sizeof(float) * channels_per_vector +
                                            size_t{16} * static_cast<size_t>(held.shared));
        // The grid's kernel with shared vectors also stages its chunk's partials there.
        const size_t staged =
            grid_barrier && held.shared > 0
                ? cluster_tiles_exchange_bytes(static_cast<int>(groups * group_channels),
                                               static_cast<int>(groups), cluster, true, held.shared)
                : 0;
        // The grid barrier needs the real occupancy, not an estimate: one block an SM, which the
        // launch bounds and shared memory below 227 KB guarantee.
        const int per_sm =
            grid_barrier
                ? (shared + staged + 1024 <= (size_t{227} << 10) ? 1 : 0)
                : std::max(1,
                           std::min({2048 / threads, 65536 / (threads * registers),
                                     static_cast<int>((size_t{227} << 10) / (shared + 1024)), 32}));
        const int64_t blocks = p.shape[0] * (p.groups / groups) * cluster;
        // A cluster's blocks fit one GPC together; the grid barrier's anywhere.
        const int64_t slots =
            grid_barrier ? int64_t{sm_count} * per_sm
                         : std::max<int64_t>(int64_t{sm_count} * per_sm / cluster, 1) * cluster;
        const int64_t waves = ceil_div(blocks, slots);
        if (grid_barrier && waves > 1) continue;  // fewer vectors a thread need more blocks
        const int64_t in_wave = std::min(blocks, slots);
        const double block_bytes = 2.0 * static_cast<double>(positions * chunk_bytes);
        const int64_t blocks_per_sm = ceil_div(in_wave, sm_count);
        const double wave_us = std::max(block_bytes * static_cast<double>(in_wave) / kBytesPerUs,
                                        block_bytes * static_cast<double>(blocks_per_sm) /
                                            (kSmBytesPerUsShare * kBytesPerUs / sm_count));
        ClusterTilesPlan plan;
        plan.chunk_groups = static_cast<int>(groups);
        plan.chunk_channels = static_cast<int>(groups * group_channels);
        plan.column_vectors = columns;
        plan.row_lanes = static_cast<int>(lanes);
        plan.threads = threads;
        plan.vectors_per_thread = vectors;
        plan.shared_vectors = held.shared;
        plan.cluster = cluster;
        plan.positions_per_block = positions;
        plan.blocks = blocks;
        plan.shared_bytes = shared;
        const double exchange_us =
            grid_barrier ? kGridBarrierUs : (cluster > 1 ? kClusterBarrierUs : 0.0);
        plan.estimated_us =
            static_cast<double>(waves) * (wave_us + kBlockReductionUs + exchange_us);
        plan.grid_barrier = grid_barrier;
        if (grid_barrier)
          // The padding only where the partials are staged: the other plans' kernels ran 0.1 us
          // slower with it on the H100, their device code unchanged (cause not found;
          // kernels/NOTES.md).
          plan.workspace_bytes = 2 * sizeof(float) * static_cast<size_t>(blocks * groups) +
                                 (held.shared > 0 ? kGridRegistersWorkspacePadding : 0);
        visit(plan);
        break;  // the fewest vectors per thread that fit: more threads, as many bytes in flight
      }
    }
  }
}

// Why the kernel cannot take p's layout at all, or empty.
std::string unsupported_layout(const ProblemShape& p) {
  if (!p.channels_last()) return "NCHW: this kernel takes channels-last data";
  if (p.channels * dtype_bytes(p.dtype) % 16 != 0)
    return "channels x element size is not a multiple of 16 bytes";
  if (p.shape[0] > kClusterTilesMaxGridExtent)
    return "more than " + std::to_string(kClusterTilesMaxGridExtent) + " samples";
  return "";
}

}  // namespace

ClusterTilesPlan plan_cluster_tiles(const ProblemShape& p, int sm_count) {
  ClusterTilesPlan best;
  best.unsupported = unsupported_layout(p);
  if (!best.unsupported.empty()) return best;
  sm_count = std::max(sm_count, 1);
  bool found = false;
  for_each_plan(p, sm_count, kClusterTilesMinChunkBytes, false, [&](const ClusterTilesPlan& plan) {
    if (!found || plan.estimated_us < best.estimated_us) best = plan;
    found = true;
  });
  if (!found) {
    best.unsupported = "no chunk of whole groups fits a cluster's registers (more than " +
                       std::to_string(kClusterTilesMaxCluster * kClusterTilesMaxThreads *
                                      kClusterTilesMaxVectors * 16 / 1024) +
                       " KB of one sample's chunk)";
    return best;
  }
  // The same blocks in smaller clusters, where chunks down to kClusterTilesNarrowChunkBytes
  // allow it at no worse an estimate (each block then holds more positions of fewer channels).
  // Among chunks of kClusterTilesMinChunkBytes or more the first pass already took the smallest
  // cluster of equal estimate, so only the narrower chunks can change the plan here.
  ClusterTilesPlan smaller = best;
  for_each_plan(p, sm_count, kClusterTilesNarrowChunkBytes, false,
                [&](const ClusterTilesPlan& plan) {
                  if (plan.blocks == best.blocks && plan.cluster < smaller.cluster &&
                      plan.estimated_us <= best.estimated_us)
                    smaller = plan;
                });
  return smaller;
}

ClusterTilesPlan plan_grid_registers(const ProblemShape& p, int sm_count) {
  ClusterTilesPlan best;
  best.unsupported = unsupported_layout(p);
  if (!best.unsupported.empty()) return best;
  sm_count = std::max(sm_count, 1);
  bool found = false;
  // At estimates within 1% (the model counts a block's last, partial lanes in full), measured
  // on the H100 (kernels/NOTES.md): fewer vectors a thread (more threads, shorter chains;
  // 2 x 320 x 64 x 64 float16 11.2 us with 8 against 12.0 with 12, 2 x 320 x 128 x 128 23.3
  // with 20 against 24.3 with 28), then narrower chunks (2 x 640 x 64 x 64 bfloat16 14.7 with
  // 160 channels against 15.1 with 320), then more blocks.
  const auto better = [](const ClusterTilesPlan& a, const ClusterTilesPlan& b) {
    const int a_vectors = a.vectors_per_thread + a.shared_vectors;
    const int b_vectors = b.vectors_per_thread + b.shared_vectors;
    if (std::abs(a.estimated_us - b.estimated_us) > 0.01 * b.estimated_us)
      return a.estimated_us < b.estimated_us;
    if (a_vectors != b_vectors) return a_vectors < b_vectors;
    if (a.chunk_channels != b.chunk_channels) return a.chunk_channels < b.chunk_channels;
    return a.blocks > b.blocks;
  };
  for_each_plan(p, sm_count, kClusterTilesMinChunkBytes, true, [&](const ClusterTilesPlan& plan) {
    if (!found || better(plan, best)) best = plan;
    found = true;
  });
  if (!found)
    best.unsupported = "x does not fit the registers and shared memory of one wave of the grid (" +
                       std::to_string(sm_count) + " SMs)";
  return best;
}

}  // namespace normbench::kernels
