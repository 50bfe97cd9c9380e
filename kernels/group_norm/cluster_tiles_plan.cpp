#include "kernels/group_norm/cluster_tiles_plan.hpp"

#include <algorithm>

namespace normbench::kernels {
namespace {

// The model's constants (H100-sized; the choice only needs their ratios to be right): the copy
// bandwidth, the most one SM moves (about twice its share of the copy bandwidth, from the
// memory it keeps in flight), and the cost of a cluster barrier with the exchange around it.
constexpr double kBytesPerUs = 3.0e6;
constexpr double kSmBytesPerUsShare = 2.0;  // times kBytesPerUs / sm_count
constexpr double kClusterBarrierUs = 0.5;
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

// Calls visit(plan) for every chunk of whole groups of at least min_chunk_bytes (16-byte
// multiples) and every cluster size, with the fewest vectors a thread that fit and the model's
// estimate.
template <class Visit>
void for_each_plan(const ProblemShape& p, int sm_count, int64_t min_chunk_bytes, Visit visit) {
  const int64_t size = dtype_bytes(p.dtype);
  const int64_t group_channels = p.channels / p.groups;
  const int channels_per_vector = static_cast<int>(16 / size);
  for (int64_t groups = 1; groups <= p.groups; ++groups) {
    if (p.groups % groups != 0) continue;
    const int64_t chunk_bytes = groups * group_channels * size;
    if (chunk_bytes % 16 != 0 || chunk_bytes / 16 > kClusterTilesMaxThreads) continue;
    if (chunk_bytes < std::min<int64_t>(min_chunk_bytes, p.channels * size)) continue;
    const int columns = static_cast<int>(chunk_bytes / 16);
    for (int cluster = 1; cluster <= kClusterTilesMaxCluster; cluster *= 2) {
      const int64_t positions = ceil_div(p.spatial, cluster);
      for (int vectors : kClusterTilesVectorCounts) {
        const int64_t lanes = ceil_div(positions, vectors);
        if (lanes * columns > kClusterTilesMaxThreads) continue;
        const int threads = round_up(static_cast<int>(lanes) * columns, 32);
        const int registers = registers_per_thread(vectors, channels_per_vector);
        const size_t shared = size_t{2} * sizeof(float) * static_cast<size_t>(threads) *
                              static_cast<size_t>(channels_per_vector);
        const int per_sm =
            std::max(1, std::min({2048 / threads, 65536 / (threads * registers),
                                  static_cast<int>((size_t{227} << 10) / (shared + 1024)), 32}));
        const int64_t blocks = p.shape[0] * (p.groups / groups) * cluster;
        const int64_t slots = std::max<int64_t>(int64_t{sm_count} * per_sm / cluster, 1) * cluster;
        const int64_t waves = ceil_div(blocks, slots);
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
        plan.cluster = cluster;
        plan.positions_per_block = positions;
        plan.blocks = blocks;
        plan.shared_bytes = shared;
        plan.estimated_us = static_cast<double>(waves) *
                            (wave_us + kBlockReductionUs + (cluster > 1 ? kClusterBarrierUs : 0.0));
        visit(plan);
        break;  // the fewest vectors per thread that fit: more threads, as many bytes in flight
      }
    }
  }
}

}  // namespace

ClusterTilesPlan plan_cluster_tiles(const ProblemShape& p, int sm_count) {
  ClusterTilesPlan best;
  if (!p.channels_last()) {
    best.unsupported = "NCHW: this kernel takes channels-last data";
    return best;
  }
  if (p.channels * dtype_bytes(p.dtype) % 16 != 0) {
    best.unsupported = "channels x element size is not a multiple of 16 bytes";
    return best;
  }
  sm_count = std::max(sm_count, 1);
  bool found = false;
  for_each_plan(p, sm_count, kClusterTilesMinChunkBytes, [&](const ClusterTilesPlan& plan) {
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
  for_each_plan(p, sm_count, kClusterTilesNarrowChunkBytes, [&](const ClusterTilesPlan& plan) {
    if (plan.blocks == best.blocks && plan.cluster < smaller.cluster &&
        plan.estimated_us <= best.estimated_us)
      smaller = plan;
  });
  return smaller;
}

}  // namespace normbench::kernels
