// The launches of the cluster_tiles kernel body (cluster_tiles_kernel.cuh) for every format:
// as a cluster launch (group_norm.cluster_tiles) or a cooperative one (group_norm.grid_registers),
// and the plan of a variant built on either, for any output epilogue (cluster_tiles.cu and
// grid_registers.cu instantiate them).
#pragma once

#include "kernels/group_norm/cluster_tiles_kernel.cuh"

namespace normbench::kernels {

template <class T, class P, int kVectors, int kShared, bool kGrid, class Epilogue>
cudaError_t launch_cluster_tiles_kernel(const ClusterTilesPlan& plan, ClusterTilesArgs a,
                                        Epilogue epilogue, cudaStream_t stream) {
  static_assert(kGrid || kShared == 0, "cluster_tiles holds its vectors in registers");
  const auto kernel = [] {  // only the kernel of this variant is instantiated
    if constexpr (kGrid)
      return grid_registers_kernel<T, P, kVectors, kShared, Epilogue>;
    else
      return cluster_tiles_kernel<T, P, kVectors, Epilogue>;
  }();
  const size_t shared = cluster_tiles_shared_bytes(plan);
  // cluster x chunks x samples (the plan keeps the last two within 65535)
  const dim3 grid(static_cast<unsigned>(plan.cluster), static_cast<unsigned>(a.chunks),
                  static_cast<unsigned>(plan.blocks / (int64_t{plan.cluster} * a.chunks)));
  cudaError_t error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(shared));
  if constexpr (kGrid) {
    // Every block resident for the grid barrier: the launch fails rather than hangs where the
    // plan's occupancy was wrong.
    if (error != cudaSuccess) return error;
    // Shared vectors come by one bulk copy a slab, contiguous only in chunks of whole rows.
    if (kShared > 0 && a.chunks != 1) return cudaErrorInvalidValue;
    void* params[] = {&a, &epilogue};
    return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), grid,
                                       dim3(static_cast<unsigned>(plan.threads)), params, shared,
                                       stream);
  }
  if (error == cudaSuccess && plan.cluster > 8)
    error = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (error != cudaSuccess) return error;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = static_cast<unsigned>(plan.cluster);
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(static_cast<unsigned>(plan.threads));
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, a, epilogue);
}

template <class T, class P, bool kGrid, class Epilogue>
cudaError_t launch_cluster_tiles_typed(const ClusterTilesPlan& plan, const ClusterTilesArgs& a,
                                       Epilogue epilogue, cudaStream_t stream) {
  if constexpr (kGrid) {  // kGridRegistersSharedVectors
    const bool twelve = plan.vectors_per_thread == 12;
    if (twelve && plan.shared_vectors == 8)
      return launch_cluster_tiles_kernel<T, P, 12, 8, true>(plan, a, epilogue, stream);
    if (twelve && plan.shared_vectors == 16)
      return launch_cluster_tiles_kernel<T, P, 12, 16, true>(plan, a, epilogue, stream);
  }
  if (plan.shared_vectors != 0) return cudaErrorInvalidValue;
  switch (plan.vectors_per_thread) {
    case 1:
      return launch_cluster_tiles_kernel<T, P, 1, 0, kGrid>(plan, a, epilogue, stream);
    case 2:
      return launch_cluster_tiles_kernel<T, P, 2, 0, kGrid>(plan, a, epilogue, stream);
    case 4:
      return launch_cluster_tiles_kernel<T, P, 4, 0, kGrid>(plan, a, epilogue, stream);
    case 8:
      return launch_cluster_tiles_kernel<T, P, 8, 0, kGrid>(plan, a, epilogue, stream);
    case 12:
      return launch_cluster_tiles_kernel<T, P, 12, 0, kGrid>(plan, a, epilogue, stream);
    case 16:
      return launch_cluster_tiles_kernel<T, P, 16, 0, kGrid>(plan, a, epilogue, stream);
  }
  return cudaErrorInvalidValue;
}

// The plan of a `<op>.cluster_tiles` variant (kGrid: `<op>.grid_registers`) with `Epilogue` on
// each output.
template <bool kGrid, class Epilogue>
KernelPlan plan_cluster_tiles_variant(const ProblemShape& p, const DeviceCaps& device) {
  if (kGrid && !device.cooperative_launch)
    return KernelPlan::declined("the grid barrier needs cooperative launch");
  if (!kGrid && device.compute_capability_major < 9)
    return KernelPlan::declined("thread block clusters need compute capability 9.0");
  const ClusterTilesPlan tiles =
      kGrid ? plan_grid_registers(p, device.sm_count) : plan_cluster_tiles(p, device.sm_count);
  if (!tiles.unsupported.empty()) return KernelPlan::declined(tiles.unsupported);
  if (tiles.shared_vectors > 0 && device.compute_capability_major < 9)
    return KernelPlan::declined(
        "x held partly in shared memory needs bulk copies (compute capability 9.0)");
  KernelPlan plan;
  plan.workspace_bytes = tiles.workspace_bytes;
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
                             small_quotient_inverse(tiles.column_vectors),
                             small_quotient_inverse(static_cast<int>(p.channels / p.groups)),
                             tiles.cluster,
                             tiles.positions_per_block,
                             static_cast<float>(p.eps),
                             1.0 / (static_cast<double>(p.spatial) * (p.channels / p.groups)),
                             static_cast<float2*>(args.workspace)};
    return with_element_types(p, [&](auto data, auto param) {
      using T = typename decltype(data)::type;
      using P = typename decltype(param)::type;
      return launch_cluster_tiles_typed<T, P, kGrid>(tiles, a, EpilogueFor<T, Epilogue>{},
                                                     args.stream);
    });
  };
  return plan;
}

}  // namespace normbench::kernels
