// Whether one launch can be both cooperative (a grid barrier, every block resident) and made of
// thread block clusters (distributed shared memory between a cluster's blocks): the question
// behind a merge of grid_registers' partials by pairs of blocks before its grid barrier
// (kernels/NOTES.md). Launches 132 blocks of 384 threads with ~150 KB of dynamic shared memory
// (grid_registers' SDXL fp16 plan) in clusters of 1, 2 and 4 with cudaLaunchAttributeCooperative,
// each block adding its rank into its cluster partner's shared memory, a cluster barrier, then
// grid.sync() and one counter that every block checks; prints what each launch returned, the
// occupancy the driver reports for the clusters, and whether every block saw the whole grid.
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o cooperative_clusters scripts/probes/cooperative_clusters.cu
//   ./cooperative_clusters
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>

#include "probe_support.cuh"

namespace {

constexpr int kThreads = 384;
constexpr size_t kShared = 150 * 1024;

__device__ unsigned arrivals;

__global__ void __launch_bounds__(kThreads, 1) exchange(unsigned* failures) {
  namespace cg = cooperative_groups;
  extern __shared__ unsigned shared[];
  const cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) shared[0] = 0;
  cluster.sync();  // every block of the cluster started, its shared memory there
  if (threadIdx.x == 0) {
    const unsigned partner = (cluster.block_rank() + 1) % cluster.num_blocks();
    atomicAdd(cluster.map_shared_rank(shared, partner), cluster.block_rank() + 1);
    atomicAdd(&arrivals, 1u);
  }
  cluster.sync();
  cg::this_grid().sync();
  if (threadIdx.x == 0) {
    const unsigned expected_from =
        (cluster.block_rank() + cluster.num_blocks() - 1) % cluster.num_blocks() + 1;
    const unsigned seen = *reinterpret_cast<volatile unsigned*>(&arrivals);
    if (shared[0] != expected_from || seen % gridDim.x != 0) atomicAdd(failures, 1u);
  }
}

}  // namespace

int main() {
  const int sms = sm_count();
  CHECK(cudaFuncSetAttribute(exchange, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(kShared)));
  unsigned* failures;
  CHECK(cudaMalloc(&failures, sizeof(unsigned)));
  for (const int size : {1, 2, 4}) {
    cudaLaunchAttribute attributes[2] = {};
    attributes[0].id = cudaLaunchAttributeCooperative;
    attributes[0].val.cooperative = 1;
    attributes[1].id = cudaLaunchAttributeClusterDimension;
    attributes[1].val.clusterDim.x = static_cast<unsigned>(size);
    attributes[1].val.clusterDim.y = 1;
    attributes[1].val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned>(sms / size * size));
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = kShared;
    config.attrs = attributes;
    config.numAttrs = 2;
    int clusters = 0;
    const cudaError_t occupancy =
        cudaOccupancyMaxActiveClusters(&clusters, reinterpret_cast<const void*>(exchange), &config);
    CHECK(cudaMemset(failures, 0, sizeof(unsigned)));
    const cudaError_t launch = cudaLaunchKernelEx(&config, exchange, failures);
    const cudaError_t done = cudaDeviceSynchronize();
    unsigned failed = 0;
    if (done == cudaSuccess)
      CHECK(cudaMemcpy(&failed, failures, sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::printf(
        "clusters of %d, %u blocks: max active clusters %d (%s); launch %s; run %s; blocks that "
        "saw a wrong partner or count: %u\n",
        size, config.gridDim.x, clusters, cudaGetErrorString(occupancy), cudaGetErrorString(launch),
        cudaGetErrorString(done), failed);
    if (launch != cudaSuccess || done != cudaSuccess) (void)cudaGetLastError();
  }
  return 0;
}
