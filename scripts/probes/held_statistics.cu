// What group_norm.grid_registers' statistics before its grid barrier cost on SDXL's 2 x 320 x 128
// x 128 float16 (21 MB, channels-last), and whether the tensor cores could take them: one-pass
// skeletons (x read once into registers, one grid barrier, y written once), one block an SM, 480
// threads x 21 vectors, each thread's quad of lanes on 4 positions of one 16-byte column (8
// channels), with these sums before the barrier:
//   skeleton      none (one word of each vector folded, so that every load is waited for);
//   float         the shipped kernel's: each vector's 8 values widened, minus their group's shift,
//                 added and squared into 8 float sums and 8 float squares (32 instructions);
//   half shift    the shift subtracted from each half pair first (HSUB2), then widened, added and
//                 squared in float (28 instructions);
//   int widening  as float, but each half widened by integer instructions (its exponent and
//                 mantissa moved into a float's low exponent bits, its sign into the float's:
//                 the value times 2^-112, exactly, subnormals too) and the 2^112 folded into the
//                 shift's subtraction (one FFMA): no half-precision instruction at all;
//   tensor cores  the shift subtracted by HSUB2, then per pair of vectors and channel pair one
//                 mma.m16n8k16 (float16 in, float accumulators): A holds the quad's differences
//                 in its rows 0-7 and ones in rows 8-15, B the same differences, so the diagonal
//                 of rows 0-7 is each quad's sum of squares and rows 8-15 its sums (6
//                 instructions a vector; the products exact, the accumulation in float).
// A one-warp check first compares the tensor-core sums with double sums of the same values.
// Not part of normbench: a probe for kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o held_statistics scripts/probes/held_statistics.cu
//   ./held_statistics [only the cases whose name contains this]
#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "probe_support.cuh"

namespace {

// SDXL's shape: 2 x 16384 positions of 40 16-byte columns (320 float16 channels, groups of 10).
constexpr int kPositions = 2 * 128 * 128, kColumns = 40, kGroupChannels = 10;
constexpr int64_t kCount = int64_t{kPositions} * kColumns;  // vectors
constexpr int kThreads = 480, kVectors = 21;                // 3 quad lanes x 40 columns x 4
constexpr int kStep = kThreads / kColumns;                  // positions between a thread's vectors
constexpr int kBlockPositions = 249;                        // 132 blocks (kStep * kVectors >= it)
static_assert(kStep * kVectors >= kBlockPositions, "a block's positions in its threads' vectors");

enum Stats { kSkeleton, kFloat, kHalfShift, kIntWiden, kTensorCores };

__device__ __forceinline__ unsigned half2_bits(__half2 h) {
  return *reinterpret_cast<const unsigned*>(&h);
}
__device__ __forceinline__ __half2 bits_half2(unsigned u) {
  return *reinterpret_cast<const __half2*>(&u);
}

// c += A * B for m16n8k16, float16 inputs, float accumulators.
__device__ __forceinline__ void mma_16816(float (&c)[4], unsigned a0, unsigned a1, unsigned a2,
                                          unsigned a3, unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

constexpr unsigned kOnes = 0x3c003c00u;  // float16 (1, 1)

// Adds the differences of register i of two vectors (d, e: half pairs of one channel pair, the
// quad's four lanes) into c: after every call, the lane (g, g / 2) of each quad g holds its sum
// of squares in c[g % 2] and its sum in c[2 + g % 2].
__device__ __forceinline__ void mma_sums(float (&c)[4], unsigned d, unsigned e) {
  mma_16816(c, d, kOnes, e, kOnes, d, e);
}

// The statistics of `kVectors` vectors in registers, folded into one word that the store before
// the barrier depends on.
template <int kStats>
__device__ __forceinline__ unsigned statistics(const uint4 (&v)[kVectors], int column,
                                               const uint4* x) {
  if constexpr (kStats == kSkeleton) {
    unsigned mix = 0u;
#pragma unroll
    for (int j = 0; j < kVectors; ++j) mix ^= v[j].x;
    return mix;
  } else {
    // Each channel pair's shift: its group's first channel at position 0 (as the kernel).
    const auto* x_half = reinterpret_cast<const __half*>(x);
    __half2 shift[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int channel = column * 8 + 2 * i;
      shift[i] = __half2half2(__ldg(x_half + channel / kGroupChannels * kGroupChannels));
    }
    if constexpr (kStats == kFloat || kStats == kHalfShift || kStats == kIntWiden) {
      float sum[8] = {}, squares[8] = {};
#pragma unroll
      for (int j = 0; j < kVectors; ++j) {
        const unsigned words[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          float2 d;
          if constexpr (kStats == kFloat) {
            const float2 value = __half22float2(bits_half2(words[i]));
            const float2 s = __half22float2(shift[i]);
            d = make_float2(value.x - s.x, value.y - s.y);
          } else if constexpr (kStats == kHalfShift) {
            d = __half22float2(__hsub2(bits_half2(words[i]), shift[i]));
          } else {
            const unsigned w = words[i];
            const float low =
                __uint_as_float(((w << 13) & 0x0fffe000u) | ((w << 16) & 0x80000000u));
            const float high = __uint_as_float(((w >> 3) & 0x0fffe000u) | (w & 0x80000000u));
            const float2 s = __half22float2(shift[i]);
            d = make_float2(fmaf(low, 0x1p112f, -s.x), fmaf(high, 0x1p112f, -s.y));
          }
          sum[2 * i] += d.x;
          sum[2 * i + 1] += d.y;
          squares[2 * i] = fmaf(d.x, d.x, squares[2 * i]);
          squares[2 * i + 1] = fmaf(d.y, d.y, squares[2 * i + 1]);
        }
      }
      float total = 0.0f;
#pragma unroll
      for (int e = 0; e < 8; ++e) total += sum[e] + squares[e];
      return __float_as_uint(total);
    } else {
      float c[4][4] = {};
#pragma unroll
      for (int j = 0; j < kVectors; j += 2) {
        const unsigned first[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
        unsigned second[4] = {0u, 0u, 0u, 0u};
        if (j + 1 < kVectors) {
          second[0] = v[j + 1].x;
          second[1] = v[j + 1].y;
          second[2] = v[j + 1].z;
          second[3] = v[j + 1].w;
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const unsigned d = half2_bits(__hsub2(bits_half2(first[i]), shift[i]));
          const unsigned e =
              j + 1 < kVectors ? half2_bits(__hsub2(bits_half2(second[i]), shift[i])) : 0u;
          mma_sums(c[i], d, e);
        }
      }
      float total = 0.0f;
#pragma unroll
      for (int i = 0; i < 4; ++i) total += c[i][0] + c[i][1] + c[i][2] + c[i][3];
      return __float_as_uint(total);
    }
  }
}

template <int kStats>
__global__ void __launch_bounds__(kThreads, 1) one_pass(const uint4* x, uint4* y) {
  const int quad = static_cast<int>(threadIdx.x) / 4;
  const int column = quad % kColumns;
  const int lane = quad / kColumns * 4 + static_cast<int>(threadIdx.x) % 4;  // 0 .. kStep - 1
  const int64_t first = int64_t{blockIdx.x} * kBlockPositions;
  const int64_t end = min(first + kBlockPositions, int64_t{kPositions});
  // Vector j at position first + lane + j * kStep, while below end: a constant offset from the
  // thread's first (64-bit positions a vector spilled).
  const int remaining = static_cast<int>(end - first) - lane;
  const uint4* from = x + (first + lane) * kColumns + column;
  uint4* to = y + (first + lane) * kColumns + column;
  uint4 v[kVectors];
#pragma unroll
  for (int j = 0; j < kVectors; ++j)  // past the end: zeros (a probe of cost, not of values)
    v[j] = j * kStep < remaining ? __ldcs(from + j * kStep * kColumns) : make_uint4(0, 0, 0, 0);
  const unsigned mix = statistics<kStats>(v, column, x);
  // A store that depends on every load, before the barrier (probe_support.cuh says why).
  if (mix == 0x9e3779b9u) probe_sink = mix;
  cooperative_groups::this_grid().sync();
#pragma unroll
  for (int j = 0; j < kVectors; ++j)
    if (j * kStep < remaining)
      __stcs(to + j * kStep * kColumns, make_uint4(v[j].x ^ (mix | 1u), v[j].y, v[j].z, v[j].w));
}

// The check: one warp, each lane kCheckVectors vectors of 8 float16 values; out[g][i] = quad g's
// (sum, sum of squares) of channel pair i, from the tensor cores.
constexpr int kCheckVectors = 8;
__global__ void tensor_core_check(const uint4* data, float2* out) {
  const int lane = static_cast<int>(threadIdx.x);
  float c[4][4] = {};
  for (int j = 0; j < kCheckVectors; j += 2) {
    const uint4 a = data[j * 32 + lane], b = data[(j + 1) * 32 + lane];
    const unsigned first[4] = {a.x, a.y, a.z, a.w}, second[4] = {b.x, b.y, b.z, b.w};
    for (int i = 0; i < 4; ++i) mma_sums(c[i], first[i], second[i]);
  }
  const int g = lane / 4;
  if (lane % 4 == g / 2)
    for (int i = 0; i < 4; ++i) out[g * 4 + i] = make_float2(c[i][2 + g % 2], c[i][g % 2]);
}

int check_tensor_cores() {
  std::vector<uint16_t> host(kCheckVectors * 32 * 8);
  unsigned h = 12345u;
  for (auto& value : host) {  // float16 in [-8, 8): sign, exponent 2^-4 .. 2^2, 10 mantissa bits
    h = h * 1664525u + 1013904223u;
    value = static_cast<uint16_t>((h >> 31) << 15 | (11u + (h >> 20) % 7u) << 10 | (h & 0x3ffu));
  }
  const auto to_double = [](uint16_t bits) {
    const int exponent = bits >> 10 & 0x1f, mantissa = bits & 0x3ff;
    const double magnitude = std::ldexp(1.0 + mantissa / 1024.0, exponent - 15);
    return bits >> 15 ? -magnitude : magnitude;
  };
  uint4* data;
  float2* out;
  CHECK(cudaMalloc(&data, host.size() * 2));
  CHECK(cudaMalloc(&out, 32 * sizeof(float2)));
  CHECK(cudaMemcpy(data, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
  tensor_core_check<<<1, 32>>>(data, out);
  std::vector<float2> result(32);
  CHECK(cudaMemcpy(result.data(), out, 32 * sizeof(float2), cudaMemcpyDeviceToHost));
  double worst_sum = 0.0, worst_squares = 0.0;
  for (int g = 0; g < 8; ++g) {
    for (int i = 0; i < 4; ++i) {
      double sum = 0.0, squares = 0.0, magnitude = 0.0;
      for (int j = 0; j < kCheckVectors; ++j)
        for (int t = 0; t < 4; ++t)
          for (int e = 0; e < 2; ++e) {
            const double value = to_double(host[((j * 32 + g * 4 + t) * 4 + i) * 2 + e]);
            sum += value;
            squares += value * value;
            magnitude += std::fabs(value);
          }
      worst_sum = std::max(worst_sum, std::fabs(result[g * 4 + i].x - sum) / magnitude);
      worst_squares = std::max(worst_squares, std::fabs(result[g * 4 + i].y - squares) / squares);
    }
  }
  std::printf(
      "tensor-core check: %d values a (quad, channel pair); worst error of the sums %.2e of the "
      "sum of magnitudes, of the squares %.2e relative\n",
      kCheckVectors * 8, worst_sum, worst_squares);
  CHECK(cudaFree(data));
  CHECK(cudaFree(out));
  return worst_sum < 1e-6 && worst_squares < 1e-6 ? 0 : 1;
}

// The integer widening against the exact value of every finite float16 (the host's float
// arithmetic keeps subnormals, as the kernels' FFMA does without flush-to-zero).
int check_int_widening() {
  int wrong = 0;
  for (unsigned h = 0; h < 0x10000u; ++h) {
    if ((h & 0x7c00u) == 0x7c00u) continue;  // infinities and NaNs: not widened by this rule
    const unsigned w = h | (h << 16);
    unsigned low_bits = ((w << 13) & 0x0fffe000u) | ((w << 16) & 0x80000000u);
    unsigned high_bits = ((w >> 3) & 0x0fffe000u) | (w & 0x80000000u);
    float low, high;
    std::memcpy(&low, &low_bits, 4);
    std::memcpy(&high, &high_bits, 4);
    const int exponent = h >> 10 & 0x1f, mantissa = h & 0x3ff;
    const double magnitude =
        exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
    const double exact = h >> 15 ? -magnitude : magnitude;
    wrong += (static_cast<double>(low * 0x1p112f) != exact) +
             (static_cast<double>(high * 0x1p112f) != exact);
  }
  std::printf("int widening: %d of 2 x 63488 finite float16 values wrong\n", wrong);
  return wrong;
}

template <int kStats>
Case one_pass_case(const char* name, int blocks, const uint4* x, uint4* y) {
  return {name, [=](cudaStream_t s) {
            void* params[] = {const_cast<void*>(static_cast<const void*>(&x)),
                              const_cast<void*>(static_cast<const void*>(&y))};
            CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(one_pass<kStats>), blocks,
                                              kThreads, params, 0, s));
          }};
}

}  // namespace

int main(int argc, char** argv) {
  if (check_int_widening() != 0) return 1;
  if (check_tensor_cores() != 0) {
    std::printf("tensor-core sums wrong: the fragment layout above does not hold\n");
    return 1;
  }
  const int sms = sm_count();
  const int blocks = (kPositions + kBlockPositions - 1) / kBlockPositions;
  if (blocks > sms) {
    std::printf("%d SMs: fewer than the %d blocks of one an SM\n", sms, blocks);
    return 1;
  }
  uint4 *x, *y;
  CHECK(cudaMalloc(&x, kCount * 16));
  CHECK(cudaMalloc(&y, kCount * 16));
  fill_values<<<1024, 256>>>(x, kCount);  // as float16: values in [1, 2) and their negatives
  CHECK(cudaGetLastError());
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const LaunchTimer timer(stream);
  const std::vector<Case> cases = {
      one_pass_case<kSkeleton>("skeleton", blocks, x, y),
      one_pass_case<kFloat>("float sums", blocks, x, y),
      one_pass_case<kHalfShift>("half shift, float sums", blocks, x, y),
      one_pass_case<kIntWiden>("int widening, float sums", blocks, x, y),
      one_pass_case<kTensorCores>("tensor-core sums", blocks, x, y),
  };
  std::printf(
      "%d blocks of %d threads x %d vectors (one an SM), grid.sync(); median, min and max of 201 "
      "event-timed samples (us)\n",
      blocks, kThreads, kVectors);
  print_case_timings(timer, cases, 3, 201, 24, argc > 1 ? argv[1] : "");
  return 0;
}
