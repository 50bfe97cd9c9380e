// NCHW tiles of group_norm.grid_tiles: a tile is elements [begin, begin + len) of one group,
// which is contiguous in NCHW. Thread t takes accesses t, t + 512, ... of the tile. An access
// never straddles two channels: kVec > 1 only when every channel's spatial run is a whole
// number of accesses.
#pragma once

#include "kernels/device/small_quotient.hpp"
#include "kernels/group_norm/grid_tiles_access.cuh"

namespace normbench::kernels {

// Offsets in a group fit in 32 bits, tiles hold at most 2^30 elements (the plan declines others).
struct NchwTile {
  int64_t segment, part;
  uint32_t begin;  // offset of the tile in its group
  int len;

  __device__ NchwTile(const GridTilesGeometry& g, int64_t tile) {
    segment = tile / g.tiles_per_part;
    part = tile % g.tiles_per_part;
    begin = static_cast<uint32_t>(part * g.tile_extent);
    len = static_cast<int>(min(g.tile_extent, g.group_elements - int64_t{begin}));
  }
};

// Sums of (x - shift) and (x - shift)^2 over the tile into partials[segment][part], shift
// being the group's first element; `scratch` holds a float2 per warp.
template <class T, int kVec>
__device__ void nchw_statistics(const GridTilesArgs& a, int64_t tile,
                                typename TileAccess<T, kVec>::Raw* hold, float2* scratch, int& it) {
  using Access = TileAccess<T, kVec>;
  constexpr int kStride = kGridTilesThreads * kVec;
  const GridTilesGeometry& g = a.geo;
  const NchwTile t(g, tile);
  const T* group = static_cast<const T*>(a.x) + t.segment * g.group_elements;
  const T* xs = group + t.begin;
  const float shift = load_element(group);

  float s1[kVec] = {}, s2[kVec] = {};
  for (int i = static_cast<int>(threadIdx.x) * kVec; i < t.len; i += kStride * kGridTilesUnroll) {
    const int valid = min(kGridTilesUnroll, (t.len - 1 - i) / kStride + 1);
    typename Access::Raw v[kGridTilesUnroll] = {};
#pragma unroll
    for (int u = 0; u < kGridTilesUnroll; ++u)
      if (u < valid) {
        const T* p = xs + i + u * kStride;
        v[u] = it + u < g.hold_slots ? Access::load_streaming(p) : Access::load_kept(p);
      }
#pragma unroll
    for (int u = 0; u < kGridTilesUnroll; ++u)
      if (u < valid) {
        if (it + u < g.hold_slots) hold[(it + u) * kGridTilesThreads + threadIdx.x] = v[u];
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          const float d = Access::get(v[u], e) - shift;
          s1[e] += d;
          s2[e] = fmaf(d, d, s2[e]);
        }
      }
    it += valid;
  }
  float sum = 0.0f, squares = 0.0f;
#pragma unroll
  for (int e = 0; e < kVec; ++e) {
    sum += s1[e];
    squares += s2[e];
  }
  sum = butterfly_sum(sum);
  squares = butterfly_sum(squares);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  if (lane == 0) scratch[warp] = make_float2(sum, squares);
  __syncthreads();
  if (warp == 0) {
    float2 v = lane < kGridTilesWarps ? scratch[lane] : make_float2(0.0f, 0.0f);
    v.x = butterfly_sum(v.x);
    v.y = butterfly_sum(v.y);
    if (lane == 0) a.partials[t.segment * g.tiles_per_part + t.part] = v;
  }
  __syncthreads();  // scratch is reused
}

// y of the tile, through the epilogue (IdentityEpilogue: GroupNorm; for group_norm_silu
// EpilogueFor's SiLU, on the argument times its input scale); the group's coefficients are staged
// in `scratch` (2 * group_channels floats). Called by the whole block (it synchronizes).
template <class T, int kVec, class Epilogue>
__device__ void nchw_normalize(const GridTilesArgs& a, int64_t tile,
                               const typename TileAccess<T, kVec>::Raw* hold, float* scratch,
                               int it) {
  using Access = TileAccess<T, kVec>;
  constexpr bool kShifted = std::is_same_v<T, float>;
  constexpr int kStride = kGridTilesThreads * kVec;
  const Epilogue epilogue{};
  const GridTilesGeometry& g = a.geo;
  const NchwTile t(g, tile);
  // The group's channels are coefficients [segment * group_channels, + group_channels).
  const int64_t c0 = t.segment * g.group_channels;
  float* scales = scratch;
  float* offsets = scratch + g.group_channels;
  for (int64_t k = threadIdx.x; k < g.group_channels; k += kGridTilesThreads) {
    float scale = __ldcg(a.scale + c0 + k), offset = __ldcg(a.offset + c0 + k);
    fold_input_scale<Epilogue>(scale, offset);
    scales[k] = scale;
    offsets[k] = offset;
  }
  const float shift = kShifted ? __ldcg(a.shift + c0) : 0.0f;
  __syncthreads();

  const T* xs = static_cast<const T*>(a.x) + t.segment * g.group_elements + t.begin;
  T* ys = static_cast<T*>(a.y) + t.segment * g.group_elements + t.begin;
  // The channel in the group of each step (its offset in the group over spatial), carried from
  // step to step rather than divided anew: SiLU needs the MUFU pipe that a division uses.
  SteppingQuotient channel(t.begin + threadIdx.x * kVec, kStride, static_cast<uint32_t>(g.spatial));
  for (int i = static_cast<int>(threadIdx.x) * kVec; i < t.len;
       i += kStride * kGridTilesNormalizeUnroll) {
    const int valid = min(kGridTilesNormalizeUnroll, (t.len - 1 - i) / kStride + 1);
    typename Access::Raw v[kGridTilesNormalizeUnroll] = {};
#pragma unroll
    for (int u = 0; u < kGridTilesNormalizeUnroll; ++u)
      if (u < valid) {
        v[u] = it + u < g.hold_slots ? hold[(it + u) * kGridTilesThreads + threadIdx.x]
                                     : Access::load_streaming(xs + i + u * kStride);
      }
#pragma unroll
    for (int u = 0; u < kGridTilesNormalizeUnroll; ++u)
      if (u < valid) {
        const float scale = scales[channel.quotient], offset = offsets[channel.quotient];
        channel.advance();
        // The step's values as one array, then the epilogue on each (apply_epilogue).
        float values[kVec];
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          const float x = Access::get(v[u], e);
          values[e] = kShifted ? fmaf(x - shift, scale, offset) : fmaf(x, scale, offset);
        }
        apply_epilogue(epilogue, values);
        typename Access::Raw out;
#pragma unroll
        for (int e = 0; e < kVec; ++e) Access::set(out, e, values[e]);
        Access::store_streaming(ys + i + u * kStride, out);
      }
    it += valid;
  }
  __syncthreads();  // scratch is reused
}

}  // namespace normbench::kernels
