// The cluster_tiles kernel: channels-last GroupNorm of the small and mid-sized diffusion shapes
// (SD 1.5 / SDXL UNet, 2 x 320..1280 channels x 16..128 squared) in one launch with no grid
// barrier. cluster_tiles_plan.hpp says how a problem is cut; per block:
//
//   loads      the block's positions of its chunk of channels, 16-byte vectors, each thread
//              all of its vectors back to back into registers (x is read once, from DRAM);
//              its channels never change, so the weight and bias of them are loaded once, at
//              the start, and so are the shifts (below);
//   statistics per channel in float, sums of (x - shift) and (x - shift)^2 with shift = the
//              group's element at position 0, the same for every block of the cluster (what
//              keeps float32 data such as 1000 + N(0,1) at its tolerance); the block adds
//              its threads' sums per channel, then per group, in fixed orders;
//   exchange   the block writes its partial of each group into every block's shared memory
//              (a slot per rank), a cluster barrier, then each block adds the partials of its
//              groups from its own slots in rank order, in double: every block gets the same
//              bits, and the run the same result every time;
//   output     y = (x - shift) * scale + offset from registers (scale = rstd * weight, offset =
//              bias - (mean - shift) * scale), the epilogue, one rounding, streaming stores.
// Pushing the partials rather than reading the other blocks' (the first version) leaves no
// shared memory of another block to read after the barrier, so no second cluster barrier keeps
// the blocks alive until every read is done: 4-11% faster on the H100 (kernels/NOTES.md). The
// one other barrier, arrived at when the loads are issued and waited for before the first
// remote write, makes sure every block of the cluster has started: its shared memory is there.
//
// Assumes channels-last x and y of 16-byte aligned rows (C * element size % 16 == 0) and a
// chunk of K * element size % 16 == 0 bytes (the plan checks both).
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/device/device_math.cuh"
#include "kernels/device/element_types.cuh"
#include "kernels/device/raw_vectors.cuh"
#include "kernels/group_norm/cluster_tiles_plan.hpp"

namespace normbench::kernels {

struct ClusterTilesArgs {
  const void* x;
  void* y;
  const void* weight;  // null: 1
  const void* bias;    // null: 0
  int64_t spatial;
  int64_t channels;
  int group_channels;
  int chunk_channels;
  int chunk_groups;
  int chunks;  // per sample
  int column_vectors;
  int row_lanes;
  int cluster;
  int64_t positions_per_block;
  float eps;
};

__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// Shared memory: `threads * E` float2 sums of each thread's channels, their totals per channel
// of the chunk, then the cluster's float2 partials of each group (one slot per rank, written by
// the blocks of the cluster) and per group its float2 (mean - shift, rstd).
inline size_t cluster_tiles_shared_bytes(const ClusterTilesPlan& plan) {
  return plan.shared_bytes +
         sizeof(float2) *
             static_cast<size_t>(plan.chunk_channels + (plan.cluster + 1) * plan.chunk_groups);
}

template <class T, class P, int kVectors, class Epilogue>
__global__ void __launch_bounds__(kClusterTilesMaxThreads)
    cluster_tiles_kernel(ClusterTilesArgs a, Epilogue epilogue) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // clusters need sm_90; the plan declines older devices
#else
  using V = RawVector<T>;
  constexpr int E = V::kCount;
  extern __shared__ float2 shared[];
  float2* thread_sums = shared;                                  // [threads][E]
  float2* channel_sums = shared + blockDim.x * E;                // [chunk_channels]
  float2* partials = channel_sums + a.chunk_channels;            // [cluster][chunk_groups]
  float2* coefficients = partials + a.cluster * a.chunk_groups;  // [chunk_groups]

  const int rank = static_cast<int>(blockIdx.x) % a.cluster;
  const int chunk_index = static_cast<int>(blockIdx.x) / a.cluster;
  const int64_t sample = chunk_index / a.chunks;
  const int chunk = chunk_index % a.chunks;
  const int column = static_cast<int>(threadIdx.x) % a.column_vectors;
  const int lane = static_cast<int>(threadIdx.x) / a.column_vectors;
  const int64_t first = int64_t{rank} * a.positions_per_block;
  const int64_t end = min(first + a.positions_per_block, a.spatial);
  const int64_t chunk_start = sample * a.spatial * a.channels + int64_t{chunk} * a.chunk_channels;
  const T* x = static_cast<const T*>(a.x) + chunk_start + column * E;
  T* y = static_cast<T*>(a.y) + chunk_start + column * E;
  auto position = [&](int j) { return first + lane + int64_t{j} * a.row_lanes; };
  auto holds = [&](int j) { return lane < a.row_lanes && position(j) < end; };

  V v[kVectors];
#pragma unroll
  for (int j = 0; j < kVectors; ++j)
    v[j].raw =
        holds(j) ? V::load_streaming(x + position(j) * a.channels).raw : make_uint4(0, 0, 0, 0);
  cluster_arrive_relaxed();  // started (waited for before the first write to another block)

  // This thread's channels, their groups' shifts, weights and biases.
  const int channel = column * E;  // within the chunk
  float shift[E], weight[E], bias[E];
  const T* sample_x = static_cast<const T*>(a.x) + chunk_start;
#pragma unroll
  for (int e = 0; e < E; ++e)
    shift[e] = to_float<T>(__ldg(sample_x + (channel + e) / a.group_channels * a.group_channels));
  const int64_t param = int64_t{chunk} * a.chunk_channels + channel;
  load_params<E>(static_cast<const P*>(a.weight), param, weight, 1.0f);
  load_params<E>(static_cast<const P*>(a.bias), param, bias, 0.0f);

  float sum[E] = {}, squares[E] = {};
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    if (!holds(j)) continue;
    float e_values[E];
    v[j].unpack(e_values);
#pragma unroll
    for (int e = 0; e < E; ++e) {
      const float d = e_values[e] - shift[e];
      sum[e] += d;
      squares[e] = fmaf(d, d, squares[e]);
    }
  }
#pragma unroll
  for (int e = 0; e < E; ++e) thread_sums[threadIdx.x * E + e] = make_float2(sum[e], squares[e]);
  __syncthreads();

  // Per channel over the lanes, then per group over its channels, in fixed orders: thread
  // (lane r, channel c) wrote index r * K + c.
  for (int c = threadIdx.x; c < a.chunk_channels; c += blockDim.x) {
    float2 total = make_float2(0.0f, 0.0f);
    for (int r = 0; r < a.row_lanes; ++r) {
      const float2 s = thread_sums[r * a.chunk_channels + c];
      total.x += s.x;
      total.y += s.y;
    }
    channel_sums[c] = total;
  }
  __syncthreads();
  cluster_wait();  // every block of the cluster has started
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  for (int g = threadIdx.x; g < a.chunk_groups; g += blockDim.x) {
    float2 total = make_float2(0.0f, 0.0f);
    for (int c = g * a.group_channels; c < (g + 1) * a.group_channels; ++c) {
      total.x += channel_sums[c].x;
      total.y += channel_sums[c].y;
    }
    for (int r = 0; r < a.cluster; ++r)
      cluster.map_shared_rank(partials, r)[rank * a.chunk_groups + g] = total;
  }
  cluster_arrive();  // partials written into every block (release) ...
  cluster_wait();    // ... and every block's written into this one (acquire)

  if (threadIdx.x < static_cast<unsigned>(a.chunk_groups)) {
    double total = 0.0, total_squares = 0.0;
    for (int r = 0; r < a.cluster; ++r) {
      const float2 s = partials[r * a.chunk_groups + threadIdx.x];
      total += s.x;
      total_squares += s.y;
    }
    const double n = static_cast<double>(a.spatial) * a.group_channels;
    const double mean = total / n;  // of x - shift
    const double variance = fmax(total_squares / n - mean * mean, 0.0);
    coefficients[threadIdx.x] =
        make_float2(static_cast<float>(mean), static_cast<float>(rsqrt(variance + a.eps)));
  }
  __syncthreads();

  float scale[E], offset[E];
#pragma unroll
  for (int e = 0; e < E; ++e) {
    const float2 c = coefficients[(channel + e) / a.group_channels];
    scale[e] = c.y * weight[e];
    offset[e] = fmaf(-c.x, scale[e], bias[e]);
  }
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    if (!holds(j)) continue;
    float e_values[E];
    v[j].unpack(e_values);
#pragma unroll
    for (int e = 0; e < E; ++e)
      e_values[e] = epilogue(fmaf(e_values[e] - shift[e], scale[e], offset[e]));
    V::pack(e_values).store_streaming(y + position(j) * a.channels);
  }
#endif
}

template <class T, class P, int kVectors, class Epilogue>
cudaError_t launch_cluster_tiles_kernel(const ClusterTilesPlan& plan, const ClusterTilesArgs& a,
                                        Epilogue epilogue, cudaStream_t stream) {
  const auto kernel = cluster_tiles_kernel<T, P, kVectors, Epilogue>;
  const size_t shared = cluster_tiles_shared_bytes(plan);
  cudaError_t error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(shared));
  if (error == cudaSuccess && plan.cluster > 8)
    error = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (error != cudaSuccess) return error;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = static_cast<unsigned>(plan.cluster);
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(plan.blocks));
  config.blockDim = dim3(static_cast<unsigned>(plan.threads));
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, a, epilogue);
}

template <class T, class P, class Epilogue>
cudaError_t launch_cluster_tiles_typed(const ClusterTilesPlan& plan, const ClusterTilesArgs& a,
                                       Epilogue epilogue, cudaStream_t stream) {
  switch (plan.vectors_per_thread) {
    case 1:
      return launch_cluster_tiles_kernel<T, P, 1>(plan, a, epilogue, stream);
    case 2:
      return launch_cluster_tiles_kernel<T, P, 2>(plan, a, epilogue, stream);
    case 4:
      return launch_cluster_tiles_kernel<T, P, 4>(plan, a, epilogue, stream);
    case 8:
      return launch_cluster_tiles_kernel<T, P, 8>(plan, a, epilogue, stream);
    case 12:
      return launch_cluster_tiles_kernel<T, P, 12>(plan, a, epilogue, stream);
    case 16:
      return launch_cluster_tiles_kernel<T, P, 16>(plan, a, epilogue, stream);
  }
  return cudaErrorInvalidValue;
}

// The plan of a `<op>.cluster_tiles` variant with `Epilogue` on each output.
template <class Epilogue>
KernelPlan plan_cluster_tiles_variant(const ProblemShape& p, const DeviceCaps& device) {
  if (device.compute_capability_major < 9)
    return KernelPlan::declined("thread block clusters need compute capability 9.0");
  const ClusterTilesPlan tiles = plan_cluster_tiles(p, device.sm_count);
  if (!tiles.unsupported.empty()) return KernelPlan::declined(tiles.unsupported);
  KernelPlan plan;
  plan.launch = [p, tiles](const KernelArgs& args) {
    const ClusterTilesArgs a{args.x,
                             args.y,
                             args.weight,
                             args.bias,
                             p.spatial,
                             p.channels,
                             static_cast<int>(p.channels / p.groups),
                             tiles.chunk_channels,
                             tiles.chunk_groups,
                             static_cast<int>(p.groups / tiles.chunk_groups),
                             tiles.column_vectors,
                             tiles.row_lanes,
                             tiles.cluster,
                             tiles.positions_per_block,
                             static_cast<float>(p.eps)};
    return with_element_types(p, [&](auto data, auto param) {
      using T = typename decltype(data)::type;
      using P = typename decltype(param)::type;
      return launch_cluster_tiles_typed<T, P>(tiles, a, EpilogueFor<T, Epilogue>{}, args.stream);
    });
  };
  return plan;
}

}  // namespace normbench::kernels
