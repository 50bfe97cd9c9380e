#include "kernels/group_norm/grid_tiles_plan.hpp"

#include <algorithm>
#include <cstdio>

namespace normbench::kernels {

namespace {
size_t align16(size_t bytes) {
  return (bytes + 15) / 16 * 16;
}

// Each block's share of an SM's shared memory when kGridTilesBlocksPerSm blocks run on it.
size_t block_smem_budget(const DeviceCaps& device) {
  if (device.shared_memory_per_sm == 0) return 48 << 10;  // unknown device: no opt-in needed
  size_t budget = device.shared_memory_per_sm / kGridTilesBlocksPerSm;
  budget = budget > kGridTilesSmemReserve ? budget - kGridTilesSmemReserve : 0;
  if (device.shared_memory_per_block_optin > 0)
    budget = std::min(budget, device.shared_memory_per_block_optin);
  return budget / 16 * 16;
}

// Units (rows or accesses) per tile: enough tiles that every block of one wave gets one, none
// over kGridTilesMaxTileBytes and none under kGridTilesMinTileBytes unless a part is smaller.
int64_t units_per_tile(int64_t units, int64_t unit_bytes, int64_t parts, int64_t slots) {
  const int64_t wanted_per_part = std::max<int64_t>(1, slots / parts);
  int64_t per_tile = ceil_div(units, wanted_per_part);
  per_tile = std::max(per_tile, ceil_div(kGridTilesMinTileBytes, unit_bytes));
  per_tile = std::min(per_tile, std::max<int64_t>(1, kGridTilesMaxTileBytes / unit_bytes));
  return std::min(per_tile, units);
}
}  // namespace

GridTilesPlan plan_grid_tiles(const ProblemShape& p, const DeviceCaps& device) {
  GridTilesPlan plan;
  GridTilesGeometry& g = plan.geometry;
  plan.element_bytes = static_cast<int>(dtype_bytes(p.dtype));
  const int full_vec = 16 / plan.element_bytes;
  g.channels_last = p.channels_last();
  g.samples = p.shape.at(0);
  g.channels = p.channels;
  g.groups = p.groups;
  g.group_channels = p.channels / p.groups;
  g.spatial = p.spatial;
  g.group_elements = p.segment_size;
  if (g.group_elements > int64_t{0xffffffff}) {
    plan.unsupported = "groups of 2^32 elements or more (32-bit offsets in a group)";
    return plan;
  }

  int64_t units = 0, unit_bytes = 0, parts = 0;
  size_t scratch = 0;
  if (g.channels_last) {
    // 16-byte accesses when every spatial row of C channels starts 16-byte aligned.
    g.vec = p.channels % full_vec == 0 ? full_vec : 1;
    const int64_t columns = p.channels / g.vec;
    g.column_threads = static_cast<int>(std::min<int64_t>(columns, kGridTilesThreads));
    g.row_lanes = std::min(kGridTilesMaxRowLanes, kGridTilesThreads / g.column_threads);
    scratch = static_cast<size_t>(g.row_lanes) * static_cast<size_t>(p.channels) * 8;  // float2
    units = p.spatial;
    unit_bytes = p.channels * plan.element_bytes;
    parts = g.samples;
  } else {
    // 16-byte accesses when every channel's spatial run is whole accesses (then no access
    // straddles two channels, and every group starts 16-byte aligned).
    g.vec = p.spatial % full_vec == 0 ? full_vec : 1;
    // The block's two float2 sums per warp, or scale and offset of a group's channels.
    scratch = std::max<size_t>(kGridTilesWarps * 8, static_cast<size_t>(g.group_channels) * 8);
    units = g.group_elements / g.vec;
    unit_bytes = int64_t{g.vec} * plan.element_bytes;
    parts = p.num_segments;
  }
  g.scratch_bytes = static_cast<int64_t>(align16(scratch));

  const size_t budget = block_smem_budget(device);
  if (static_cast<size_t>(g.scratch_bytes) > budget) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "%lld channels need %lld KB of shared memory for per-channel sums, more than "
                  "a block's %zu KB",
                  static_cast<long long>(p.channels), static_cast<long long>(g.scratch_bytes >> 10),
                  budget >> 10);
    plan.unsupported = text;
    return plan;
  }
  const size_t access_bytes = static_cast<size_t>(g.vec) * plan.element_bytes;
  g.hold_slots = static_cast<int>((budget - g.scratch_bytes) / (access_bytes * kGridTilesThreads));
  plan.smem_bytes =
      g.scratch_bytes + static_cast<size_t>(g.hold_slots) * access_bytes * kGridTilesThreads;

  // Without cooperative launch every tile is a whole part: its block needs no other block.
  plan.sm_count = device.sm_count > 0 ? device.sm_count : 132;
  const int64_t slots = int64_t{kGridTilesBlocksPerSm} * plan.sm_count;
  const int64_t per_tile =
      device.cooperative_launch ? units_per_tile(units, unit_bytes, parts, slots) : units;
  g.tile_extent = g.channels_last ? per_tile : per_tile * g.vec;
  g.tiles_per_part = ceil_div(units, per_tile);
  g.tiles = parts * g.tiles_per_part;
  plan.cooperative = g.tiles_per_part > 1;
  const int64_t tile_elements = g.channels_last ? g.tile_extent * g.channels : g.tile_extent;
  if (tile_elements > int64_t{1} << 30) {
    plan.unsupported = "tiles of more than 2^30 elements (32-bit offsets in a tile)";
    return plan;
  }

  plan.partials_bytes = align16(static_cast<size_t>(p.num_segments * g.tiles_per_part) * 8);
  plan.coefficients_offset = plan.partials_bytes;
  plan.coefficient_array_bytes = align16(static_cast<size_t>(g.samples * g.channels) * 4);
  plan.workspace_bytes = plan.coefficients_offset + 3 * plan.coefficient_array_bytes;
  return plan;
}

}  // namespace normbench::kernels
