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
// With row counts as arguments, the skeletons of each op instead, parameters included (RMSNorm:
// x and its weight -> y; LayerNorm: x, weight and bias -> y; add_rms_norm: x, the residual and
// the weight -> y and the sum), for hidden sizes 4096, 5120 and 8192 at those row counts, with
// one, two and four vectors a thread (torch.compile's kernels take one), and beside them the
// kernel normbench's default runs for that problem in bfloat16 (row_in_registers: the wide_rows
// kernel with its plan and hints, families/wide_rows.cuh), timed in the same process: where it
// takes what the skeleton takes, decode.json's ties with torch.compile are at the floor of this
// pattern.
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -o decode_floor scripts/probes/decode_floor.cu \
//     kernels/families/wide_rows_plan.cpp kernels/problem_shape.cpp kernels/tensor_roles.cpp \
//     kernels/registry.cpp
//   ./decode_floor               (the 128- and 512-row data movement, no parameters)
//   ./decode_floor 1 8 32 128 512   (each op with its parameters at these row counts)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "probe_support.cuh"
#include "row_kernel.cuh"

namespace {

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

// One op's skeleton: `tensors` inputs and outputs, `params` parameter rows, `vectors` a thread.
void launch_op_skeleton(int tensors, int params, int vectors, int rows, int row_vectors,
                        const uint4* x, const uint4* residual, uint4* y, uint4* sum,
                        const uint4* weights, cudaStream_t s) {
  const int threads = (row_vectors / vectors + 31) / 32 * 32;
  const auto go = [&](auto kernel) {
    kernel<<<rows, threads, 0, s>>>(x, residual, y, sum, row_vectors, weights);
  };
  if (tensors == 1 && params == 1 && vectors == 1) go(row_skeleton<1, 1, 1>);
  if (tensors == 1 && params == 1 && vectors == 2) go(row_skeleton<1, 2, 1>);
  if (tensors == 1 && params == 1 && vectors == 4) go(row_skeleton<1, 4, 1>);
  if (tensors == 1 && params == 2 && vectors == 1) go(row_skeleton<1, 1, 2>);
  if (tensors == 1 && params == 2 && vectors == 2) go(row_skeleton<1, 2, 2>);
  if (tensors == 1 && params == 2 && vectors == 4) go(row_skeleton<1, 4, 2>);
  if (tensors == 2 && params == 1 && vectors == 1) go(row_skeleton<2, 1, 1>);
  if (tensors == 2 && params == 1 && vectors == 2) go(row_skeleton<2, 2, 1>);
  if (tensors == 2 && params == 1 && vectors == 4) go(row_skeleton<2, 4, 1>);
}

// The row kernel normbench's `<op>.default` runs on decode rows (`<op>.row_in_registers`), with
// its own hints (row_kernel.cuh).
std::function<void(cudaStream_t)> normbench_kernel(const std::string& op, int rows, int hidden,
                                                   int sms, const uint4* x, const uint4* residual,
                                                   uint4* y, uint4* sum, const uint4* weights) {
  using normbench::Op;
  const Op kind = op == "rms_norm"     ? Op::rms_norm
                  : op == "layer_norm" ? Op::layer_norm
                                       : Op::add_rms_norm;
  const normbench::KernelArgs args = row_kernel_args(kind, hidden, x, residual, y, sum, weights);
  return kind == Op::layer_norm
             ? row_kernel<kShippedLayerNormLoadsStores>(kind, rows, hidden, sms, args)
             : row_kernel<kShippedRmsLoadsStores>(kind, rows, hidden, sms, args);
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t max_vectors = int64_t{512} * 8192 * 2 / 16;  // 512 rows of 8192 16-bit values
  uint4 *x, *residual, *y, *sum;
  for (uint4** p : {&x, &residual, &y, &sum}) {
    CHECK(cudaMalloc(p, max_vectors * 16));
    CHECK(cudaMemset(*p, 0, max_vectors * 16));
  }
  fill_values<<<1024, 256>>>(x, max_vectors);
  fill_values<<<1024, 256>>>(residual, max_vectors);
  CHECK(cudaDeviceSynchronize());
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);

  std::vector<Case> cases = {latency_floor_case(x, y)};
  uint4* params;
  CHECK(cudaMalloc(&params, 2 * 8192 * 2));
  CHECK(cudaMemset(params, 0, 2 * 8192 * 2));
  const int sms = sm_count();
  if (argc > 1) {
    struct Op {
      const char* name;
      int tensors, params;
    };
    for (const Op op :
         {Op{"rms_norm    ", 1, 1}, Op{"layer_norm  ", 1, 2}, Op{"add_rms_norm", 2, 1}})
      for (const int hidden : {4096, 5120, 8192})
        for (int a = 1; a < argc; ++a) {
          const int rows = std::atoi(argv[a]);
          if (rows < 1 || rows > 512) {
            std::printf("rows %s: not between 1 and 512\n", argv[a]);
            return 2;
          }
          const int row_vectors = hidden * 2 / 16;
          std::string name = op.name;
          name.erase(name.find_last_not_of(' ') + 1);
          cases.push_back({std::string(op.name) + " " + std::to_string(rows) + " x " +
                               std::to_string(hidden) + ", normbench's kernel",
                           normbench_kernel(name, rows, hidden, sms, x, residual, y, sum, params)});
          for (const int vectors : {1, 2, 4})
            cases.push_back({std::string(op.name) + " " + std::to_string(rows) + " x " +
                                 std::to_string(hidden) + ", " + std::to_string(vectors) +
                                 " vectors",
                             [=](cudaStream_t s) {
                               launch_op_skeleton(op.tensors, op.params, vectors, rows, row_vectors,
                                                  x, residual, y, sum, params, s);
                             }});
        }
    std::printf("median, min and max of 101 event-timed launches (us)\n");
    print_case_timings(timer, cases, 2, 101, 46);
    return 0;
  }
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
