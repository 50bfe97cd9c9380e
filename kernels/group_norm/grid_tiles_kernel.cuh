// group_norm.grid_tiles: GroupNorm of any format (float32, bfloat16, float16 data; weight and
// bias in the data's type or float32, either absent; NCHW or channels-last) in one launch.
//
// x is cut into tiles of contiguous memory (grid_tiles_plan.hpp), about one per block of one
// wave (2 blocks of 512 threads per SM), at most 128 KB each:
//   1. statistics: each block reads its tiles (16-byte accesses where rows are aligned) and
//      writes, per group a tile touches, the float sums of x - shift and (x - shift)^2, shift
//      being the group's first element (so 1000 + N(0,1) keeps its variance). The block keeps
//      its first accesses in shared memory (~80-110 KB per block, ~21-29 MB on an H100);
//   2. grid barrier; merge: one warp per group adds the group's tile sums in double in a fixed
//      order and folds mean, rstd, weight and bias into a per-channel scale and offset;
//   3. grid barrier; normalize: each block walks its tiles again, last first, taking x from
//      shared memory where held and from global memory (mostly L2: read last) otherwise, and
//      writes y = (x - shift) * scale + offset (16-bit data: x * scale + offset), through the
//      epilogue (a template parameter: SiluEpilogue for group_norm_silu, in registers).
// Fixed orders everywhere: the output is bitwise the same on every run and any grid size.
// When a part (a sample channels-last, a group NCHW) is a single tile, every block has all it
// needs: no barrier, an ordinary launch (also the fallback without cooperative launch). The
// launches are in grid_tiles.cu.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/device/device_math.cuh"
#include "kernels/group_norm/grid_tiles_access.cuh"
#include "kernels/group_norm/grid_tiles_channels_last.cuh"
#include "kernels/group_norm/grid_tiles_nchw.cuh"

namespace normbench::kernels {

// Statistics and coefficients of group `segment` (= sample * groups + group) from its tiles'
// partials. Called by a whole warp.
template <class T>
__device__ void merge_group(const GridTilesArgs& a, int64_t segment) {
  const GridTilesGeometry& g = a.geo;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int64_t sample = segment / g.groups;
  const int64_t first_channel = segment % g.groups * g.group_channels;
  const T* x = static_cast<const T*>(a.x);
  const float shift =
      load_element(g.channels_last ? x + sample * g.spatial * g.channels + first_channel
                                   : x + segment * g.group_elements);
  const float2* partials = a.partials + segment * g.tiles_per_part;
  double sum = 0.0, squares = 0.0;
  for (int64_t t = lane; t < g.tiles_per_part; t += 32) {
    const float2 v = __ldcg(partials + t);
    sum += v.x;
    squares += v.y;
  }
  sum = butterfly_sum(sum);
  squares = butterfly_sum(squares);
  const auto count = static_cast<double>(g.group_elements);
  const double mean = sum / count;  // of x - shift
  const double variance = fmax(squares / count - mean * mean, 0.0);
  const auto rstd = static_cast<float>(1.0 / sqrt(variance + a.eps));
  const auto mean_f = static_cast<float>(mean);
  for (int64_t k = lane; k < g.group_channels; k += 32) {
    const int64_t c = first_channel + k, i = sample * g.channels + c;
    const float scale = rstd * load_param<T>(a.weight, c, a.params_float, 1.0f);
    const float offset = fmaf(-mean_f, scale, load_param<T>(a.bias, c, a.params_float, 0.0f));
    a.scale[i] = scale;
    // float32 data keeps x - shift (exact for nearby values): folding shift * scale into the
    // offset would cost |mean * rstd| * 2^-24 of absolute error, 6e-5 on 1000 + N(0,1), over
    // a 1e-5 tolerance. For 16-bit outputs that error is far below their rounding (2^-8,
    // 2^-11 relative) unless |mean| / std exceeds ~10^4, which 16-bit data cannot resolve.
    a.offset[i] = std::is_same_v<T, float> ? offset : fmaf(-shift, scale, offset);
    a.shift[i] = shift;
  }
}

// Weight and bias are first read by the merge, after the statistics: move them toward L2 at
// the start (one 128-byte line per thread of the grid) so that the merge does not wait on DRAM.
template <class T>
__device__ void prefetch_params(const GridTilesArgs& a) {
  const int64_t bytes = a.geo.channels * (a.params_float ? 4 : static_cast<int64_t>(sizeof(T)));
  const int64_t line = int64_t{threadIdx.x} * gridDim.x + blockIdx.x;
  if (line * 128 >= bytes) return;
#if defined(__CUDA_ARCH__)
  for (const void* p : {a.weight, a.bias})
    if (p)
      asm volatile("prefetch.global.L2 [%0];" ::"l"(
          __cvta_generic_to_global(static_cast<const char*>(p) + line * 128)));
#endif
}

// The kernel's two paths (below: every tile a whole part, or a cooperative launch with grid
// barriers) in one instantiation, chosen by GridTilesArgs::cooperative, or one path each. Apart,
// ptxas spilled less in the channels-last instantiations at their 64 registers (16-bit data
// 84 / 152 bytes of spill stores / loads -> 44-52 / 80-92), and on the H100 the 8 x 512 x 64 x 64
// bfloat16 NHWC GroupNorm took 36.4 us instead of 37.1; NCHW keeps both in one (apart, the VAE's
// float16 SiLU ran 0.3 us slower; kernels/NOTES.md).
enum class GridTilesPaths { ordinary, cooperative, both };

template <class T, bool kChannelsLast, int kVec, class Epilogue, GridTilesPaths kPaths>
__global__ void __launch_bounds__(kGridTilesThreads, kGridTilesBlocksPerSm)
    grid_tiles_kernel(const GridTilesArgs a) {
  constexpr bool kOrdinary = kPaths != GridTilesPaths::cooperative;
  constexpr bool kCooperative = kPaths != GridTilesPaths::ordinary;
  using Raw = typename TileAccess<T, kVec>::Raw;
  extern __shared__ uint4 smem[];
  const GridTilesGeometry& g = a.geo;
  auto* scratch = reinterpret_cast<float2*>(smem);
  auto* hold = reinterpret_cast<Raw*>(reinterpret_cast<char*>(smem) + g.scratch_bytes);
  const auto statistics = [&](int64_t tile, int& it) {
    if constexpr (kChannelsLast)
      channels_last_statistics<T, kVec>(a, tile, hold, scratch, it);
    else
      nchw_statistics<T, kVec>(a, tile, hold, scratch, it);
  };
  const auto normalize = [&](int64_t tile, int it) {
    if constexpr (kChannelsLast)
      channels_last_normalize<T, kVec, Epilogue>(a, tile, hold, it);
    else
      nchw_normalize<T, kVec, Epilogue>(a, tile, hold, reinterpret_cast<float*>(scratch), it);
  };
  const int warp = static_cast<int>(threadIdx.x) / 32;
  prefetch_params<T>(a);

  // Every tile is a whole part: its groups' partials are all here.
  if (kOrdinary && (!kCooperative || !a.cooperative)) {
    for (int64_t tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) {
      int it = 0;
      statistics(tile, it);
      const int64_t first = kChannelsLast ? tile * g.groups : tile;
      const int64_t count = kChannelsLast ? g.groups : 1;
      for (int64_t s = warp; s < count; s += kGridTilesWarps) merge_group<T>(a, first + s);
      __syncthreads();
      normalize(tile, 0);
      __syncthreads();
    }
    return;
  }

  if constexpr (kCooperative) {
    const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    int it = 0;
    for (int64_t tile = blockIdx.x; tile < g.tiles; tile += gridDim.x) statistics(tile, it);
    grid.sync();
    const int64_t workers = int64_t{gridDim.x} * kGridTilesWarps;
    for (int64_t s = int64_t{blockIdx.x} * kGridTilesWarps + warp; s < g.samples * g.groups;
         s += workers)
      merge_group<T>(a, s);
    grid.sync();
    if (blockIdx.x >= g.tiles) return;
    // Last tile first: the accesses not held were read last, so L2 still has most of them.
    int end = it;
    const int64_t last = blockIdx.x + (g.tiles - 1 - blockIdx.x) / gridDim.x * gridDim.x;
    for (int64_t tile = last; tile >= blockIdx.x; tile -= gridDim.x) {
      const int start =
          end - static_cast<int>(g.thread_chunks(tile, static_cast<int>(threadIdx.x)));
      normalize(tile, start);
      end = start;
    }
  }
}

}  // namespace normbench::kernels
