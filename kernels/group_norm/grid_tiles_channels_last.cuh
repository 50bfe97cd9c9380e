// Channels-last tiles of group_norm.grid_tiles: a tile is rows [row0, row0 + rows) of one
// sample, every row C contiguous channels. Thread t owns column (t % column_threads) of the
// row's C / kVec accesses (and every column_threads-th after it when C is wide) and walks rows
// lane_row, lane_row + row_lanes, ...: its accesses always cover the same kVec channels, so it
// keeps one running sum per channel in registers, whatever groups those channels belong to
// (8 bfloat16 channels may straddle two groups of 10).
#pragma once

#include "kernels/group_norm/grid_tiles_access.cuh"

namespace normbench::kernels {

// Offsets inside a tile fit in 32 bits (the plan declines larger tiles).
struct ChannelsLastTile {
  int64_t sample, part, first;  // first: memory index of the tile's first element
  int rows, channels, columns, lane_col, lane_row;

  __device__ ChannelsLastTile(const GridTilesGeometry& g, int64_t tile, int vec) {
    sample = tile / g.tiles_per_part;
    part = tile % g.tiles_per_part;
    const int64_t row0 = part * g.tile_extent;
    rows = static_cast<int>(min(g.tile_extent, g.spatial - row0));
    first = (sample * g.spatial + row0) * g.channels;
    channels = static_cast<int>(g.channels);
    columns = channels / vec;
    lane_col = static_cast<int>(threadIdx.x) % g.column_threads;
    lane_row = static_cast<int>(threadIdx.x) / g.column_threads;
  }
};

// Sums of (x - shift) and (x - shift)^2 per group of the tile into partials[.., part], shift
// being the group's first element. `hold` gets the thread's accesses number it, it + 1, ...
// while below hold_slots. `table` (row_lanes * C float2 of scratch) collects per-channel sums,
// each row lane's with channel c = col * kVec + e at entry e * columns + col: a warp's threads
// hold consecutive columns and so write consecutive 8-byte entries, where by channel they wrote
// 8 * kVec bytes apart, a bank conflict of four or eight ways. On the H100 the bfloat16 NHWC
// shapes of configs/diffusion.json ran 0.5-0.6 us faster so (ncu: excessive shared wavefronts
// 49% -> 11%; kernels/NOTES.md).
template <class T, int kVec>
__device__ void channels_last_statistics(const GridTilesArgs& a, int64_t tile,
                                         typename TileAccess<T, kVec>::Raw* hold, float2* table,
                                         int& it) {
  using Access = TileAccess<T, kVec>;
  const GridTilesGeometry& g = a.geo;
  const ChannelsLastTile t(g, tile, kVec);
  const T* sample = static_cast<const T*>(a.x) + t.sample * g.spatial * g.channels;
  const T* xs = static_cast<const T*>(a.x) + t.first;
  const int group_channels = static_cast<int>(g.group_channels);
  const int row_step = g.row_lanes * t.channels;  // elements between a thread's rows

  if (t.lane_row < g.row_lanes) {
    for (int col = t.lane_col; col < t.columns; col += g.column_threads) {
      float shift[kVec], s1[kVec], s2[kVec];
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const int c = col * kVec + e;
        shift[e] = load_element(sample + c / group_channels * group_channels);
        s1[e] = 0.0f;
        s2[e] = 0.0f;
      }
      for (int row = t.lane_row; row < t.rows; row += g.row_lanes * kGridTilesUnroll) {
        const int valid = min(kGridTilesUnroll, (t.rows - 1 - row) / g.row_lanes + 1);
        const T* p = xs + (row * t.channels + col * kVec);
        typename Access::Raw v[kGridTilesUnroll] = {};
#pragma unroll
        for (int u = 0; u < kGridTilesUnroll; ++u)
          if (u < valid)
            v[u] = it + u < g.hold_slots ? Access::load_streaming(p + u * row_step)
                                         : Access::load_kept(p + u * row_step);
#pragma unroll
        for (int u = 0; u < kGridTilesUnroll; ++u)
          if (u < valid) {
            if (it + u < g.hold_slots) hold[(it + u) * kGridTilesThreads + threadIdx.x] = v[u];
#pragma unroll
            for (int e = 0; e < kVec; ++e) {
              const float d = Access::get(v[u], e) - shift[e];
              s1[e] += d;
              s2[e] = fmaf(d, d, s2[e]);
            }
          }
        it += valid;
      }
#pragma unroll
      for (int e = 0; e < kVec; ++e)
        table[t.lane_row * t.channels + e * t.columns + col] = make_float2(s1[e], s2[e]);
    }
  }
  __syncthreads();
  // Per channel over the row lanes (entry by entry), then per group over its channels; fixed
  // orders.
  for (int i = threadIdx.x; i < t.channels; i += kGridTilesThreads) {
    float2 sum = table[i];
    for (int r = 1; r < g.row_lanes; ++r) {
      const float2 v = table[r * t.channels + i];
      sum.x += v.x;
      sum.y += v.y;
    }
    table[i] = sum;
  }
  __syncthreads();
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  for (int group = warp; group < g.groups; group += kGridTilesWarps) {
    float sum = 0.0f, squares = 0.0f;
    for (int k = lane; k < group_channels; k += 32) {
      const int c = group * group_channels + k;
      const float2 v = table[c % kVec * t.columns + c / kVec];
      sum += v.x;
      squares += v.y;
    }
    sum = butterfly_sum(sum);
    squares = butterfly_sum(squares);
    if (lane == 0)
      a.partials[(t.sample * g.groups + group) * g.tiles_per_part + t.part] =
          make_float2(sum, squares);
  }
  __syncthreads();  // the table is reused by the block's next tile
}

// y of the tile from the coefficients of its sample, through the epilogue (as nchw_normalize);
// the thread's accesses number it, it + 1, ... and come from `hold` while below hold_slots,
// else again from x.
template <class T, int kVec, class Epilogue>
__device__ void channels_last_normalize(const GridTilesArgs& a, int64_t tile,
                                        const typename TileAccess<T, kVec>::Raw* hold, int it) {
  using Access = TileAccess<T, kVec>;
  constexpr bool kShifted = std::is_same_v<T, float>;
  const Epilogue epilogue{};
  const GridTilesGeometry& g = a.geo;
  const ChannelsLastTile t(g, tile, kVec);
  if (t.lane_row >= g.row_lanes) return;
  const T* xs = static_cast<const T*>(a.x) + t.first;
  T* ys = static_cast<T*>(a.y) + t.first;
  const int row_step = g.row_lanes * t.channels;

  for (int col = t.lane_col; col < t.columns; col += g.column_threads) {
    const int64_t c0 = t.sample * g.channels + col * kVec;
    float scale[kVec], offset[kVec], shift[kVec] = {};
    load_coefficients<kVec>(a.scale + c0, scale);
    load_coefficients<kVec>(a.offset + c0, offset);
    if constexpr (kShifted) load_coefficients<kVec>(a.shift + c0, shift);
#pragma unroll
    for (int e = 0; e < kVec; ++e) fold_input_scale<Epilogue>(scale[e], offset[e]);
    for (int row = t.lane_row; row < t.rows; row += g.row_lanes * kGridTilesUnroll) {
      const int valid = min(kGridTilesUnroll, (t.rows - 1 - row) / g.row_lanes + 1);
      const int at = row * t.channels + col * kVec;
      typename Access::Raw v[kGridTilesUnroll] = {};
#pragma unroll
      for (int u = 0; u < kGridTilesUnroll; ++u)
        if (u < valid)
          v[u] = it + u < g.hold_slots ? hold[(it + u) * kGridTilesThreads + threadIdx.x]
                                       : Access::load_streaming(xs + at + u * row_step);
#pragma unroll
      for (int u = 0; u < kGridTilesUnroll; ++u)
        if (u < valid) {
          typename Access::Raw out;
#pragma unroll
          for (int e = 0; e < kVec; ++e) {
            const float x = Access::get(v[u], e);
            Access::set(out, e,
                        epilogue(kShifted ? fmaf(x - shift[e], scale[e], offset[e])
                                          : fmaf(x, scale[e], offset[e])));
          }
          Access::store_streaming(ys + at + u * row_step, out);
        }
      it += valid;
    }
  }
}

}  // namespace normbench::kernels
