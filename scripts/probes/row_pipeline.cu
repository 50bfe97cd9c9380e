// Whether add_rms_norm's 512 cold rows of 8192 bfloat16 values would finish sooner if some rows'
// stores overlapped other rows' loads. normbench's row kernel runs every row's block at once (four
// 512-thread blocks an SM): each block loads its row, stores s = x + residual, reduces, loads the
// weight and stores y, and decode.json has it 0.2-0.4 us behind torch.compile there. The
// outputs stay in L2 while the kernel runs (dram-writes-in-kernel-ncu.txt), so the stores need not
// wait for DRAM. Skeletons of the same traffic and arithmetic (s rounded to bfloat16, its sum of
// squares, a block reduction, y = s * rstd * weight), 512 threads, two 16-byte vectors of x and of
// the residual a thread:
//   a row a block        512 blocks, four an SM, every load at once (normbench's form);
//   two rows a block     256 blocks, two an SM: the first row's loads, then the second row's
//                        (issued at once, or only after the first row's have landed, by a data
//                        dependency), then the first row's stores and the second's;
//   two rows together    the same, both rows' sums behind one block reduction, then both y;
//   four rows a block    128 blocks, one an SM, each row's loads issued once the previous row's
//                        have landed, while that row is finished;
//   256 threads x 4      a row a block with two rows a block's warps and bytes an SM;
//   the weight first     the weight read through L1 before x (a row a block, and 256 x 4).
// Beside them normbench's own kernel for the problem (row_kernel.cuh: the plan, form and hints
// add_rms_norm.row_in_registers ships with). Cold and warm as normbench times them. Not part of
// normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -o row_pipeline scripts/probes/row_pipeline.cu \
//     kernels/families/wide_rows_plan.cpp kernels/problem_shape.cpp kernels/tensor_roles.cpp \
//     kernels/registry.cpp
//   ./row_pipeline
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "probe_support.cuh"
#include "row_kernel.cuh"

namespace {

constexpr int kThreads = 512;
constexpr int kHidden = 8192;
constexpr int kRows = 512;
constexpr int kRowVectors = kHidden / 8;  // 16-byte vectors of bfloat16
static_assert(kRowVectors == 2 * kThreads, "two vectors a thread");

struct Row {
  uint4 x[2], r[2];
};

__device__ __forceinline__ void load_row(const uint4* x, const uint4* r, int64_t row, Row& v) {
  const int64_t at = row * kRowVectors + threadIdx.x;
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    v.x[j] = __ldcs(x + at + j * kThreads);
    v.r[j] = __ldcs(r + at + j * kThreads);
  }
}

// The block's sum of `value`, every thread getting it.
__device__ __forceinline__ float block_sum(float value) {
  __shared__ float partial[kThreads / 32];
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_xor_sync(0xffffffffu, value, offset);
  __syncthreads();  // the previous row's readers are done
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = value;
  __syncthreads();
  float total = threadIdx.x % 32 < kThreads / 32 ? partial[threadIdx.x % 32] : 0.0f;
#pragma unroll
  for (int offset = 8; offset > 0; offset /= 2)
    total += __shfl_xor_sync(0xffffffffu, total, offset);
  return total;
}

// One 16-byte vector of s = x + residual rounded to bfloat16 (returned packed), its 8 values in
// float into `s`, their squares added to `squares`.
__device__ __forceinline__ uint4 add_vector(const uint4& x, const uint4& r, float (&s)[8],
                                            float& squares) {
  const auto* a = reinterpret_cast<const __nv_bfloat162*>(&x);
  const auto* b = reinterpret_cast<const __nv_bfloat162*>(&r);
  uint4 packed;
  auto* p = reinterpret_cast<__nv_bfloat162*>(&packed);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const float2 fa = __bfloat1622float2(a[k]), fb = __bfloat1622float2(b[k]);
    p[k] = __floats2bfloat162_rn(fa.x + fb.x, fa.y + fb.y);
    const float2 rounded = __bfloat1622float2(p[k]);
    s[2 * k] = rounded.x;
    s[2 * k + 1] = rounded.y;
    squares = fmaf(rounded.x, rounded.x, fmaf(rounded.y, rounded.y, squares));
  }
  return packed;
}

// y = s * rstd * weight for one vector, rounded to bfloat16.
__device__ __forceinline__ uint4 scale_vector(const float (&s)[8], float rstd, const uint4& w) {
  const auto* pw = reinterpret_cast<const __nv_bfloat162*>(&w);
  uint4 packed;
  auto* p = reinterpret_cast<__nv_bfloat162*>(&packed);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const float2 fw = __bfloat1622float2(pw[k]);
    p[k] = __floats2bfloat162_rn(s[2 * k] * rstd * fw.x, s[2 * k + 1] * rstd * fw.y);
  }
  return packed;
}

// s = x + residual stored, rstd over s, y = s * rstd * weight stored.
__device__ __forceinline__ void finish_row(const Row& v, const uint4* weight, uint4* s_out,
                                           uint4* y, int64_t row) {
  const int64_t at = row * kRowVectors + threadIdx.x;
  float s[2][8];
  float squares = 0.0f;
#pragma unroll
  for (int j = 0; j < 2; ++j)
    __stcs(s_out + at + j * kThreads, add_vector(v.x[j], v.r[j], s[j], squares));
  const float rstd = rsqrtf(block_sum(squares) / kHidden + 1e-6f);
#pragma unroll
  for (int j = 0; j < 2; ++j)
    __stcs(y + at + j * kThreads,
           scale_vector(s[j], rstd, __ldg(weight + threadIdx.x + j * kThreads)));
}

__global__ void __launch_bounds__(kThreads, 4)
    row_a_block(const uint4* x, const uint4* r, const uint4* w, uint4* s, uint4* y) {
  Row v;
  load_row(x, r, blockIdx.x, v);
  finish_row(v, w, s, y, blockIdx.x);
}

template <bool kAfter>
__global__ void __launch_bounds__(kThreads, 2)
    two_rows_a_block(const uint4* x, const uint4* r, const uint4* w, uint4* s, uint4* y) {
  const int64_t first = 2 * int64_t{blockIdx.x}, second = first + 1;
  Row a, b;
  if constexpr (!kAfter) load_row(x, r, second, b);
  load_row(x, r, first, a);
  if constexpr (kAfter) {
    // The second row's addresses depend on the first row's data: its loads issue once that landed.
    const int64_t shift = (a.x[0].x ^ a.r[1].w) == 0x9e3779b9u ? 1 : 0;
    load_row(x, r, second + shift, b);
  }
  finish_row(a, w, s, y, first);
  finish_row(b, w, s, y, second);
}

// Two rows a block finished together: both rows' sums of squares behind one block reduction (a
// float2), then both rows' y (the fourteenth stop's several rows a block).
__global__ void __launch_bounds__(kThreads, 2)
    two_rows_together(const uint4* x, const uint4* r, const uint4* w, uint4* s_out, uint4* y) {
  __shared__ float2 partial[kThreads / 32];
  const int64_t first = 2 * int64_t{blockIdx.x};
  Row rows[2];
  load_row(x, r, first, rows[0]);
  load_row(x, r, first + 1, rows[1]);
  float sv[2][2][8];
  float squares[2] = {0.0f, 0.0f};
#pragma unroll
  for (int q = 0; q < 2; ++q) {
    const int64_t at = (first + q) * kRowVectors + threadIdx.x;
#pragma unroll
    for (int j = 0; j < 2; ++j)
      __stcs(s_out + at + j * kThreads,
             add_vector(rows[q].x[j], rows[q].r[j], sv[q][j], squares[q]));
  }
  float2 total = make_float2(squares[0], squares[1]);
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    total.x += __shfl_xor_sync(0xffffffffu, total.x, offset);
    total.y += __shfl_xor_sync(0xffffffffu, total.y, offset);
  }
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = total;
  __syncthreads();
  float2 sum = threadIdx.x % 32 < kThreads / 32 ? partial[threadIdx.x % 32] : make_float2(0.f, 0.f);
#pragma unroll
  for (int offset = 8; offset > 0; offset /= 2) {
    sum.x += __shfl_xor_sync(0xffffffffu, sum.x, offset);
    sum.y += __shfl_xor_sync(0xffffffffu, sum.y, offset);
  }
  const float rstd[2] = {rsqrtf(sum.x / kHidden + 1e-6f), rsqrtf(sum.y / kHidden + 1e-6f)};
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    const uint4 wv = __ldg(w + threadIdx.x + j * kThreads);
#pragma unroll
    for (int q = 0; q < 2; ++q)
      __stcs(y + (first + q) * kRowVectors + threadIdx.x + j * kThreads,
             scale_vector(sv[q][j], rstd[q], wv));
  }
}

// kRows a block in turn, each row's loads issued once the previous row's have landed (a data
// dependency), the previous row finished while they are in flight.
template <int kRowsPerBlock>
__global__ void __launch_bounds__(kThreads, 1)
    rows_in_turn(const uint4* x, const uint4* r, const uint4* w, uint4* s, uint4* y) {
  const int64_t first = int64_t{kRowsPerBlock} * blockIdx.x;
  Row current, next;
  load_row(x, r, first, current);
#pragma unroll 1
  for (int i = 0; i < kRowsPerBlock; ++i) {
    if (i + 1 < kRowsPerBlock) {
      const int64_t shift = (current.x[0].x ^ current.r[1].w) == 0x9e3779b9u ? 1 : 0;
      load_row(x, r, first + i + 1 + shift, next);
    }
    finish_row(current, w, s, y, first + i);
    current = next;
  }
}

// A row a block of kT threads, kV vectors of x and of the residual a thread (kT * kV = 1024).
// kWeightFirst: the weight read through L1 (ld.global.nc) before x, pinned there by asm volatile,
// so that an SM's blocks read it from L2 while x comes from DRAM instead of after their sums.
__device__ __forceinline__ uint4 load_nc_pinned(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

template <int kT, int kV, int kMinBlocks, bool kWeightFirst = false>
__global__ void __launch_bounds__(kT, kMinBlocks)
    row_a_block_of(const uint4* x, const uint4* r, const uint4* w, uint4* s_out, uint4* y) {
  static_assert(kT * kV == kRowVectors, "a row");
  __shared__ float partial[kT / 32];
  const int64_t at = int64_t{blockIdx.x} * kRowVectors + threadIdx.x;
  uint4 early[kV];
  if constexpr (kWeightFirst) {
#pragma unroll
    for (int j = 0; j < kV; ++j) early[j] = load_nc_pinned(w + threadIdx.x + j * kT);
  }
  uint4 vx[kV], vr[kV];
#pragma unroll
  for (int j = 0; j < kV; ++j) {
    vx[j] = __ldcs(x + at + j * kT);
    vr[j] = __ldcs(r + at + j * kT);
  }
  float sv[kV][8];
  float squares = 0.0f;
#pragma unroll
  for (int j = 0; j < kV; ++j)
    __stcs(s_out + at + j * kT, add_vector(vx[j], vr[j], sv[j], squares));
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    squares += __shfl_xor_sync(0xffffffffu, squares, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = squares;
  __syncthreads();
  float total = threadIdx.x % 32 < kT / 32 ? partial[threadIdx.x % 32] : 0.0f;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    total += __shfl_xor_sync(0xffffffffu, total, offset);
  const float rstd = rsqrtf(total / kHidden + 1e-6f);
#pragma unroll
  for (int j = 0; j < kV; ++j) {
    const uint4 wv = kWeightFirst ? early[j] : __ldg(w + threadIdx.x + j * kT);
    __stcs(y + at + j * kT, scale_vector(sv[j], rstd, wv));
  }
}

}  // namespace

int main() {
  const int64_t vectors = int64_t{kRows} * kRowVectors;
  uint4 *x, *r, *w, *s, *y;
  CHECK(cudaMalloc(&x, vectors * 16));
  CHECK(cudaMalloc(&r, vectors * 16));
  CHECK(cudaMalloc(&w, kRowVectors * 16));
  CHECK(cudaMalloc(&s, vectors * 16));
  CHECK(cudaMalloc(&y, vectors * 16));
  fill_values<<<1024, 256>>>(x, vectors);
  fill_values<<<1024, 256>>>(r, vectors);
  fill_values<<<8, 128>>>(w, kRowVectors);
  CHECK(cudaDeviceSynchronize());
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);
  const normbench::KernelArgs args =
      row_kernel_args(normbench::Op::add_rms_norm, kHidden, x, r, y, s, w);
  const std::vector<Case> cases = {
      {"normbench's kernel (row_in_registers)",
       row_kernel<kShippedRmsLoadsStores>(normbench::Op::add_rms_norm, kRows, kHidden, sm_count(),
                                          args)},
      {"a row a block (512 blocks)",
       [=](cudaStream_t st) { row_a_block<<<kRows, kThreads, 0, st>>>(x, r, w, s, y); }},
      {"two rows a block, second row at once",
       [=](cudaStream_t st) {
         two_rows_a_block<false><<<kRows / 2, kThreads, 0, st>>>(x, r, w, s, y);
       }},
      {"two rows a block, second row after",
       [=](cudaStream_t st) {
         two_rows_a_block<true><<<kRows / 2, kThreads, 0, st>>>(x, r, w, s, y);
       }},
      {"a row a block of 256 threads x 4 vectors",
       [=](cudaStream_t st) { row_a_block_of<256, 4, 4><<<kRows, 256, 0, st>>>(x, r, w, s, y); }},
      {"two rows a block, finished together",
       [=](cudaStream_t st) { two_rows_together<<<kRows / 2, kThreads, 0, st>>>(x, r, w, s, y); }},
      {"a row a block, the weight first through L1",
       [=](cudaStream_t st) {
         row_a_block_of<512, 2, 4, true><<<kRows, 512, 0, st>>>(x, r, w, s, y);
       }},
      {"256 threads x 4 vectors, the weight first",
       [=](cudaStream_t st) {
         row_a_block_of<256, 4, 4, true><<<kRows, 256, 0, st>>>(x, r, w, s, y);
       }},
      {"four rows a block in turn (128 blocks)",
       [=](cudaStream_t st) { rows_in_turn<4><<<kRows / 4, kThreads, 0, st>>>(x, r, w, s, y); }},
  };
  std::printf(
      "%d rows of %d bfloat16, add_rms_norm's traffic; median, min and max of 201 "
      "event-timed samples (us)\n",
      kRows, kHidden);
  print_case_timings(timer, cases, 3, 201, 40);
  return 0;
}
