// Phases 1 and 2 of two_phase_rows.cuh: per-tile partial statistics, merged per row.
#include "kernels/families/two_phase_rows.cuh"

namespace normbench::kernels {

namespace {
__global__ void __launch_bounds__(kTileThreads)
    tile_stats_kernel(const float* __restrict__ x, int64_t row_size, int64_t tiles_per_row,
                      SlicePartial* __restrict__ partials) {
  __shared__ double scratch[64];
  const int64_t row = blockIdx.x / tiles_per_row;
  const int64_t tile = blockIdx.x % tiles_per_row;
  const int64_t vecs = row_size / 4;
  const int64_t first = tile * kTileVecs;
  const float4* xr = reinterpret_cast<const float4*>(x + row * row_size);
  const float shift = __ldg(x + row * row_size);

  float4 v[kTileVecsPerThread];
  int owned = 0;
#pragma unroll
  for (int j = 0; j < kTileVecsPerThread; ++j) {
    const int64_t i = first + j * kTileThreads + threadIdx.x;
    // Plain loads: these lines should stay in L2 for phase 3.
    v[j] = i < vecs ? minus(__ldg(xr + i), shift) : make_float4(0.f, 0.f, 0.f, 0.f);
    owned += i < vecs;
  }
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < kTileVecsPerThread; ++j) sum += sum_of(v[j]);
  const double count = 4.0 * static_cast<double>(min(kTileVecs, vecs - first));
  const auto tile_delta = static_cast<float>(block_sum2<kTileThreads>(sum, 0.0, scratch).x / count);
  float dev = 0.0f, dev_sq = 0.0f;
#pragma unroll
  for (int j = 0; j < kTileVecsPerThread; ++j)
    if (j < owned) {
      const float4 d = minus(v[j], tile_delta);
      dev += sum_of(d);
      dev_sq += (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
    }
  const double2 s = block_sum2<kTileThreads>(dev, dev_sq, scratch);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = {count, tile_delta + s.x / count, s.y - s.x * s.x / count};
}

// Fixed-order merge of one row's tile partials: mean first, then M2 around it.
__global__ void __launch_bounds__(kTileThreads)
    merge_row_stats_kernel(const float* __restrict__ x, int64_t row_size, int64_t tiles_per_row,
                           const SlicePartial* __restrict__ partials, double eps,
                           SegmentStats* __restrict__ stats) {
  __shared__ double scratch[64];
  const int64_t row = blockIdx.x;
  const SlicePartial* p = partials + row * tiles_per_row;
  double weighted = 0.0;
  for (int64_t t = threadIdx.x; t < tiles_per_row; t += kTileThreads)
    weighted += p[t].count * p[t].mean;
  const double mean =
      block_sum2<kTileThreads>(weighted, 0.0, scratch).x / static_cast<double>(row_size);
  double m2 = 0.0;
  for (int64_t t = threadIdx.x; t < tiles_per_row; t += kTileThreads) {
    const double d = p[t].mean - mean;
    m2 += p[t].m2 + p[t].count * d * d;
  }
  m2 = block_sum2<kTileThreads>(m2, 0.0, scratch).x;
  if (threadIdx.x == 0)
    stats[row] = {__ldg(x + row * row_size), static_cast<float>(mean),
                  static_cast<float>(1.0 / sqrt(m2 / static_cast<double>(row_size) + eps))};
}

}  // namespace

cudaError_t launch_row_statistics(const ProblemShape& p, const KernelArgs& args,
                                  SegmentStats** stats) {
  const int64_t tiles = tiles_per_row(p);
  auto* partials = static_cast<SlicePartial*>(args.workspace);
  *stats = reinterpret_cast<SegmentStats*>(static_cast<char*>(args.workspace) +
                                           two_phase_stats_offset(p));
  tile_stats_kernel<<<static_cast<unsigned>(p.num_segments * tiles), kTileThreads, 0,
                      args.stream>>>(x_f32(args), p.segment_size, tiles, partials);
  merge_row_stats_kernel<<<static_cast<unsigned>(p.num_segments), kTileThreads, 0, args.stream>>>(
      x_f32(args), p.segment_size, tiles, partials, p.eps, *stats);
  return cudaGetLastError();
}

}  // namespace normbench::kernels
