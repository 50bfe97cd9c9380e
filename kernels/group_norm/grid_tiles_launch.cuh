// The launches of the grid_tiles kernel (grid_tiles_kernel.cuh) for every format, and the plan
// of a variant built on it, for any output epilogue: group_norm.grid_tiles and
// group_norm_silu.grid_tiles (grid_tiles.cu) instantiate it.
#pragma once

#include <algorithm>

#include "kernels/group_norm/grid_tiles_kernel.cuh"
#include "kernels/registry.hpp"

namespace normbench::kernels {

template <class T, bool kChannelsLast, int kVec, class Epilogue>
cudaError_t launch_grid_tiles_kernel(const GridTilesPlan& plan, GridTilesArgs a,
                                     cudaStream_t stream) {
  const auto kernel = [&] {
    using Paths = GridTilesPaths;
    if constexpr (!kChannelsLast) return grid_tiles_kernel<T, false, kVec, Epilogue, Paths::both>;
    return a.cooperative ? grid_tiles_kernel<T, true, kVec, Epilogue, Paths::cooperative>
                         : grid_tiles_kernel<T, true, kVec, Epilogue, Paths::ordinary>;
  }();
  cudaError_t error = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(plan.smem_bytes));
  // All of the unified L1/shared memory as shared memory: two blocks of ~113 KB per SM.
  if (error == cudaSuccess)
    error = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared);
  if (error != cudaSuccess) return error;
  if (!a.cooperative) {
    // Enough blocks to fill the device many times; more would only grid-stride.
    const int64_t blocks = std::min<int64_t>(a.geo.tiles, int64_t{plan.sm_count} * 64);
    kernel<<<static_cast<unsigned>(blocks), kGridTilesThreads, plan.smem_bytes, stream>>>(a);
    return cudaGetLastError();
  }
  // Every block must be resident for the grid barriers: as many as fit, at most one per tile.
  int per_sm = 0;
  error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kGridTilesThreads,
                                                        plan.smem_bytes);
  if (error != cudaSuccess) return error;
  if (per_sm < 1) return cudaErrorCooperativeLaunchTooLarge;
  const int64_t blocks = std::min<int64_t>(a.geo.tiles, int64_t{per_sm} * plan.sm_count);
  void* params[] = {&a};
  return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel),
                                     dim3(static_cast<unsigned>(blocks)), dim3(kGridTilesThreads),
                                     params, plan.smem_bytes, stream);
}

template <class T, class Epilogue>
cudaError_t launch_grid_tiles_typed(const GridTilesPlan& plan, const GridTilesArgs& a,
                                    cudaStream_t stream) {
  constexpr int kFull = 16 / static_cast<int>(sizeof(T));
  using E = EpilogueFor<T, Epilogue>;
  if (a.geo.channels_last)
    return a.geo.vec == 1 ? launch_grid_tiles_kernel<T, true, 1, E>(plan, a, stream)
                          : launch_grid_tiles_kernel<T, true, kFull, E>(plan, a, stream);
  return a.geo.vec == 1 ? launch_grid_tiles_kernel<T, false, 1, E>(plan, a, stream)
                        : launch_grid_tiles_kernel<T, false, kFull, E>(plan, a, stream);
}

template <class Epilogue>
cudaError_t launch_grid_tiles(const ProblemShape& p, const GridTilesPlan& plan,
                              const KernelArgs& args) {
  char* workspace = static_cast<char*>(args.workspace);
  auto* coefficients = reinterpret_cast<float*>(workspace + plan.coefficients_offset);
  const size_t array = plan.coefficient_array_bytes / sizeof(float);
  GridTilesArgs a{plan.geometry,
                  args.x,
                  args.y,
                  args.weight,
                  args.bias,
                  p.param_dtype == DType::float32,
                  plan.cooperative,
                  p.eps,
                  reinterpret_cast<float2*>(workspace),
                  coefficients,
                  coefficients + array,
                  coefficients + 2 * array};
  switch (p.dtype) {
    case DType::float32:
      return launch_grid_tiles_typed<float, Epilogue>(plan, a, args.stream);
    case DType::bfloat16:
      return launch_grid_tiles_typed<__nv_bfloat16, Epilogue>(plan, a, args.stream);
    case DType::float16:
      return launch_grid_tiles_typed<__half, Epilogue>(plan, a, args.stream);
  }
  return cudaErrorInvalidValue;
}

// The plan of a grid_tiles variant whose outputs go through `Epilogue` (IdentityEpilogue:
// group_norm.grid_tiles; SiluEpilogue: group_norm_silu.grid_tiles): the same tiles, bytes and
// workspace either way.
template <class Epilogue>
KernelPlan plan_grid_tiles_variant(const ProblemShape& p, const DeviceCaps& device) {
  const GridTilesPlan tiles = plan_grid_tiles(p, device);
  if (!tiles.unsupported.empty()) return KernelPlan::declined(tiles.unsupported);
  KernelPlan plan;
  plan.workspace_bytes = tiles.workspace_bytes;
  plan.launch = [p, tiles](const KernelArgs& args) {
    return launch_grid_tiles<Epilogue>(p, tiles, args);
  };
  return plan;
}

}  // namespace normbench::kernels
