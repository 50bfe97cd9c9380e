// The smallest launches under normbench's timing: what a kernel for a few decode rows or a
// small UNet GroupNorm cannot go below on this GPU, whatever its bytes. Each launch is timed
// with CUDA events on one stream, 101 times, with L2 evicted before each sample as normbench
// does (a read of twice its size at evict-last priority, then the lines discarded: "cold"), and
// again with only a short spin before it ("warm": the data stays in L2, as in a decoder whose
// previous kernel just wrote x). Not part of normbench: a probe for kernels/NOTES.md, wider than
// the latency floor that normbench measures once per run (app/timing/latency_floor.cu: the
// empty launch of one block and the four cache lines, cold and warm).
//
//   nvcc -O3 -arch=sm_90 -o latency_floor scripts/probes/latency_floor.cu
//   ./latency_floor
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "probe_support.cuh"

namespace {

__global__ void empty_kernel() {}

// A row of `vecs` 16-byte vectors per block, summed (one block reduction, as a norm's
// statistics need) and written back scaled: the data movement and one barrier of a row kernel.
__global__ void row_reduce_copy(const uint4* x, uint4* y, int vecs) {
  __shared__ float partial[32];
  const uint4* row = x + int64_t{blockIdx.x} * vecs;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < vecs; i += blockDim.x) sum += __uint_as_float(row[i].x);
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < blockDim.x / 32 ? partial[threadIdx.x] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (threadIdx.x == 0) partial[0] = sum;
  }
  __syncthreads();
  const unsigned scale = __float_as_uint(partial[0]) | 1u;
  for (int i = threadIdx.x; i < vecs; i += blockDim.x) {
    uint4 v = row[i];
    v.x ^= scale;
    y[int64_t{blockIdx.x} * vecs + i] = v;
  }
}

struct Launch {
  const char* name;
  std::function<void(cudaStream_t)> run;
};

}  // namespace

int main() {
  int device = 0, l2 = 0, sms = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int64_t data_bytes = int64_t{64} << 20;
  uint4 *x, *y;
  CHECK(cudaMalloc(&x, data_bytes));
  CHECK(cudaMalloc(&y, data_bytes));
  CHECK(cudaMemset(x, 0, data_bytes));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);

  // A decode row of hidden size 4096 in bfloat16 is 8 KB: 512 vectors.
  const int row_vecs = 4096 * 2 / 16;
  const std::vector<Launch> launches = {
      {"empty kernel, 1 thread", [](cudaStream_t s) { empty_kernel<<<1, 1, 0, s>>>(); }},
      {"empty kernel, one wave of 256-thread blocks",
       [&](cudaStream_t s) { empty_kernel<<<sms, 256, 0, s>>>(); }},
      {"4 cache lines read and written (1 warp)",
       [&](cudaStream_t s) { copy_vectors<<<1, 32, 0, s>>>(x, y, 32); }},
      {"1 row of 4096 bf16: reduce + write (1 block of 256)",
       [&](cudaStream_t s) { row_reduce_copy<<<1, 256, 0, s>>>(x, y, row_vecs); }},
      {"8 rows of 4096 bf16 (8 blocks)",
       [&](cudaStream_t s) { row_reduce_copy<<<8, 256, 0, s>>>(x, y, row_vecs); }},
      {"128 rows of 4096 bf16 (128 blocks)",
       [&](cudaStream_t s) { row_reduce_copy<<<128, 256, 0, s>>>(x, y, row_vecs); }},
      {"512 rows of 4096 bf16 (512 blocks)",
       [&](cudaStream_t s) { row_reduce_copy<<<512, 256, 0, s>>>(x, y, row_vecs); }},
      {"2 MB copy (a 2x320x64x64 fp16 tensor's x to y)",
       [&](cudaStream_t s) {
         copy_vectors<<<sms * 8, 256, 0, s>>>(x, y, (2 * 320 * 64 * 64 * 2) / 16);
       }},
  };

  std::printf("%d SMs, L2 %d MB; median, min and max of 101 event-timed launches (us)\n", sms,
              l2 >> 20);
  for (int round = 0; round < 2; ++round) {  // two rounds: the spread between them is noise
    for (const bool cold : {true, false}) {
      for (const Launch& launch : launches) {
        const LaunchTimer::Timing t = timer.time(launch.run, cold, 101);
        std::printf("round %d  %-5s %-52s median %7.2f  min %7.2f  max %7.2f\n", round,
                    cold ? "cold" : "warm", launch.name, t.median, t.min, t.max);
      }
    }
  }
  return 0;
}
