// Can a decode row kernel come within 1.5x of the latency floor (issue target) where it moves
// the most bytes? The data movement of configs/decode.json's 128- and 512-row problems without
// their arithmetic or parameters: one block a row, each thread its 16-byte vectors of every input
// row loaded back to back into registers, one word of each summed over the block (the one
// dependency a norm has: no output before the row's statistics), every output row stored. Inputs
// and outputs: RMSNorm and LayerNorm read x and write y; add_rms_norm reads x and the residual
// and writes y and the sum. Beside them the latency floor as normbench measures it (one warp
// reading and writing four cache lines), in the same conditions, so that each skeleton's ratio
// to it is measured, not estimated. Cold (L2 evicted before each launch) and warm (data left
// in L2), as decode.json's problems. Two and four vectors a thread (normbench's kernels use two
// here); the faster is the floor of this pattern.
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o decode_floor scripts/probes/decode_floor.cu
//   ./decode_floor
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "probe_support.cuh"

namespace {

__global__ void copy_vectors(const uint4* x, uint4* y, int64_t count) {
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x)
    y[i] = x[i];
}

// Row r of `tensors` inputs (in[k] + r * row_vectors) summed and written to as many outputs;
// with kParams, each output also takes kParams parameter vectors (the same row for every block,
// as a norm's weight and bias), loaded with x.
template <int kTensors, int kVectors, int kParams = 0>
__global__ void __launch_bounds__(1024)
    row_skeleton(const uint4* x, const uint4* residual, uint4* y, uint4* sum, int row_vectors,
                 const uint4* params = nullptr) {
  __shared__ float partial[32];
  const int64_t row = int64_t{blockIdx.x} * row_vectors;
  uint4 v[kTensors][kVectors];
#pragma unroll
  for (int k = 0; k < kTensors; ++k) {
    const uint4* in = k == 0 ? x : residual;
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      const int i = static_cast<int>(threadIdx.x) + j * static_cast<int>(blockDim.x);
      v[k][j] = i < row_vectors ? in[row + i] : make_uint4(0, 0, 0, 0);
    }
  }
  uint4 p[kParams > 0 ? kParams : 1][kVectors];
#pragma unroll
  for (int k = 0; k < kParams; ++k)
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      const int i = static_cast<int>(threadIdx.x) + j * static_cast<int>(blockDim.x);
      p[k][j] = i < row_vectors ? __ldg(params + k * row_vectors + i) : make_uint4(0, 0, 0, 0);
    }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < kTensors; ++k)
#pragma unroll
    for (int j = 0; j < kVectors; ++j) s += __uint_as_float(v[k][j].x & 0x3fffffffu);
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = s;
  __syncthreads();
  s = threadIdx.x % 32 < blockDim.x / 32 ? partial[threadIdx.x % 32] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
  const unsigned mix = __float_as_uint(s) | 1u;
#pragma unroll
  for (int k = 0; k < kTensors; ++k) {
    uint4* out = k == 0 ? y : sum;
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
      const int i = static_cast<int>(threadIdx.x) + j * static_cast<int>(blockDim.x);
      unsigned w = 0;
#pragma unroll
      for (int q = 0; q < kParams; ++q) w ^= p[q][j].y;
      if (i < row_vectors)
        out[row + i] = make_uint4(v[k][j].x ^ mix, v[k][j].y ^ w, v[k][j].z, v[k][j].w);
    }
  }
}

}  // namespace

int main() {
  const int64_t max_vectors = int64_t{512} * 8192 * 2 / 16;  // 512 rows of 8192 16-bit values
  uint4 *x, *residual, *y, *sum;
  for (uint4** p : {&x, &residual, &y, &sum}) {
    CHECK(cudaMalloc(p, max_vectors * 16));
    CHECK(cudaMemset(*p, 0, max_vectors * 16));
  }
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);

  std::vector<Case> cases = {{"latency floor: 4 cache lines (1 warp)",
                              [=](cudaStream_t s) { copy_vectors<<<1, 32, 0, s>>>(x, y, 32); }}};
  for (const int tensors : {1, 2}) {
    for (const int hidden : {4096, 5120, 8192}) {
      for (const int rows : {128, 512}) {
        const int row_vectors = hidden * 2 / 16;
        for (const int vectors : {2, 4}) {
          const int threads = (row_vectors / vectors + 31) / 32 * 32;
          const std::string name = std::string(tensors == 1 ? "x -> y      " : "x, r -> y, s") +
                                   " " + std::to_string(rows) + " x " + std::to_string(hidden) +
                                   " 16-bit, " + std::to_string(vectors) + " vectors";
          cases.push_back(
              {name, [=](cudaStream_t s) {
                 if (tensors == 1 && vectors == 2)
                   row_skeleton<1, 2><<<rows, threads, 0, s>>>(x, residual, y, sum, row_vectors);
                 if (tensors == 1 && vectors == 4)
                   row_skeleton<1, 4><<<rows, threads, 0, s>>>(x, residual, y, sum, row_vectors);
                 if (tensors == 2 && vectors == 2)
                   row_skeleton<2, 2><<<rows, threads, 0, s>>>(x, residual, y, sum, row_vectors);
                 if (tensors == 2 && vectors == 4)
                   row_skeleton<2, 4><<<rows, threads, 0, s>>>(x, residual, y, sum, row_vectors);
               }});
        }
      }
    }
  }

  // With the parameters: LayerNorm's weight and bias, add_rms_norm's weight.
  uint4* params;
  CHECK(cudaMalloc(&params, 2 * 8192 * 2));
  CHECK(cudaMemset(params, 0, 2 * 8192 * 2));
  cases.push_back({"x -> y       512 x 4096 + weight, bias, 2 vectors", [=](cudaStream_t s) {
                     row_skeleton<1, 2, 2><<<512, 256, 0, s>>>(x, residual, y, sum, 512, params);
                   }});
  cases.push_back({"x -> y       128 x 8192 + weight, bias, 2 vectors", [=](cudaStream_t s) {
                     row_skeleton<1, 2, 2><<<128, 512, 0, s>>>(x, residual, y, sum, 1024, params);
                   }});
  cases.push_back({"x, r -> y, s 128 x 8192 + weight, 2 vectors", [=](cudaStream_t s) {
                     row_skeleton<2, 2, 1><<<128, 512, 0, s>>>(x, residual, y, sum, 1024, params);
                   }});

  std::printf("median, min and max of 101 event-timed launches (us)\n");
  print_case_timings(timer, cases, 2, 101, 46);  // two rounds: the spread between them is noise
  return 0;
}
