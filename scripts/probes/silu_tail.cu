// What SiLU costs in the last phase of group_norm_silu.grid_registers (kernels/NOTES.md, "SiLU
// for float16: every form on the SFU measured"): after the grid barrier each thread turns the 64
// float16 values it holds into outputs, about 310 threads an SM on SD 1.5's 2 x 320 x 64 x 64.
// This probe runs that phase alone with the same threads and values, for each form of SiLU: the
// values get GroupNorm's fused multiply-add and the form `rounds` times over (each round's output
// the next round's input, 64 independent chains a thread), then one streaming store. The time of
// rounds = 16 less that of rounds = 0, over 16, is what one pass of the form costs on the whole
// GPU; the identity form gives the multiply-add's part. Not part of normbench: a probe for
// kernels/NOTES.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -o silu_tail scripts/probes/silu_tail.cu
//   ./silu_tail
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "kernels/device/device_math.cuh"
#include "probe_support.cuh"
#include "silu_forms.cuh"

namespace {

using normbench::kernels::IdentityEpilogue;
using normbench::kernels::SiluEpilogue;
using normbench::kernels::SiluTanhEpilogue;
using normbench::probes::NewtonTwoMufuPairs;
using normbench::probes::OnV;
using normbench::probes::SiluCubicEpilogue;
using normbench::probes::SiluNewtonEpilogue;
using normbench::probes::SiluTwoMufuEpilogue;

// Each form maps two values at a time (forms that take one apply it to each).
template <class Scalar>
struct EachOf {
  __device__ __forceinline__ float2 operator()(float v0, float v1) const {
    return make_float2(Scalar{}(v0), Scalar{}(v1));
  }
};

// tanh(v/2) and e^min(v, 0) / 2 in float16x2 (one MUFU instruction each in PTX, two MUFU.F16
// operations each in SASS), y = E (v + |v| T) in float32: sigmoid(v) = e^min(v,0) (1 + |T|) / 2
// without cancellation for either sign.
struct TanhEx2Halves {
  __device__ __forceinline__ float2 operator()(float v0, float v1) const {
    uint32_t v, h, t, m, a, e;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(v) : "f"(v1), "f"(v0));
    asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(h) : "r"(v), "r"(0x38003800u));  // v/2
    asm("tanh.approx.f16x2 %0, %1;" : "=r"(t) : "r"(h));
    asm("min.f16x2 %0, %1, %2;" : "=r"(m) : "r"(v), "r"(0u));
    asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(a) : "r"(m), "r"(0x3dc53dc5u), "r"(0xbc00bc00u));
    asm("ex2.approx.f16x2 %0, %1;" : "=r"(e) : "r"(a));  // 2^(min(v,0) log2 e - 1)
    const float2 tf = __half22float2(*reinterpret_cast<const __half2*>(&t));
    const float2 ef = __half22float2(*reinterpret_cast<const __half2*>(&e));
    return make_float2(fmaf(fabsf(v0), tf.x, v0) * ef.x, fmaf(fabsf(v1), tf.y, v1) * ef.y);
  }
};

// e^-v in float16x2, the reciprocal in float32.
struct Ex2HalvesRcp {
  __device__ __forceinline__ float2 operator()(float v0, float v1) const {
    uint32_t v, a, e;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(v) : "f"(v1), "f"(v0));
    asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(a) : "r"(v), "r"(0xbdc5bdc5u));  // -v log2 e
    asm("ex2.approx.f16x2 %0, %1;" : "=r"(e) : "r"(a));
    const float2 ef = __half22float2(*reinterpret_cast<const __half2*>(&e));
    return make_float2(__fdividef(v0, 1.0f + ef.x), __fdividef(v1, 1.0f + ef.y));
  }
};

// The floor of the forms on the SFU, wrong for float16 (an earlier version of
// tests/gpu/silu_epilogue_test.cu measured 1.05 to 2.0 of its tolerance near v = -8 to -16,
// whatever the cutoff below which y is 0; kernels/NOTES.md):
// h + h tanh(h) with tanh in float16x2, one MUFU.F16 operation an element.
struct TanhHalvesOnly {
  __device__ __forceinline__ float2 operator()(float v0, float v1) const {
    uint32_t v, h, t;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(v) : "f"(v1), "f"(v0));
    asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(h) : "r"(v), "r"(0x38003800u));
    asm("tanh.approx.f16x2 %0, %1;" : "=r"(t) : "r"(h));
    const float2 tf = __half22float2(*reinterpret_cast<const __half2*>(&t));
    return make_float2(fmaf(0.5f * v0, tf.x, 0.5f * v0), fmaf(0.5f * v1, tf.y, 0.5f * v1));
  }
};

// Pairs of values through a form that takes two at a time, as grid_registers once did.
template <class Form>
struct Pairs {
  __device__ __forceinline__ float2 operator()(float v0, float v1) const {
    float v[2] = {v0, v1};
    Form{}(v);
    return make_float2(v[0], v[1]);
  }
};

constexpr int kVectors = 8;  // 8 x 8 float16 values a thread, as grid_registers on SD 1.5

template <class Form>
__global__ void __launch_bounds__(1024, 1)
    tail(const uint4* x, uint4* y, float scale, float offset, int rounds) {
  const Form form{};
  float v[kVectors][8];
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    const uint4 raw = x[(j * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x];
    const __half2* h = reinterpret_cast<const __half2*>(&raw);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float2 f = __half22float2(h[k]);
      v[j][2 * k] = f.x;
      v[j][2 * k + 1] = f.y;
    }
  }
#pragma unroll 1
  for (int r = 0; r <= rounds; ++r) {
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
#pragma unroll
      for (int e = 0; e < 8; ++e) v[j][e] = fmaf(v[j][e], scale, offset);
#pragma unroll
      for (int e = 0; e < 8; e += 2) {
        const float2 y = form(v[j][e], v[j][e + 1]);
        v[j][e] = y.x;
        v[j][e + 1] = y.y;
      }
    }
  }
#pragma unroll
  for (int j = 0; j < kVectors; ++j) {
    uint4 raw;
    __half2* h = reinterpret_cast<__half2*>(&raw);
#pragma unroll
    for (int k = 0; k < 4; ++k) h[k] = __floats2half2_rn(v[j][2 * k], v[j][2 * k + 1]);
    __stcs(y + (j * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x, raw);
  }
}

template <class Form>
void measure(const char* name, const LaunchTimer& timer, const uint4* x, uint4* y, int blocks,
             int threads) {
  float us[2];
  for (int i = 0; i < 2; ++i) {
    const int rounds = i == 0 ? 0 : 16;
    us[i] = timer
                .time(
                    [&](cudaStream_t s) {
                      tail<Form><<<blocks, threads, 0, s>>>(x, y, 0.999f, 0.001f, rounds);
                    },
                    /*cold=*/false, 101)
                .median;
  }
  std::printf("%-34s kernel with one pass %6.2f us, each pass more %5.3f us\n", name, us[0],
              (us[1] - us[0]) / 16);
}

}  // namespace

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  const LaunchTimer timer(stream);
  for (int threads : {320, 640}) {
    const int64_t count = int64_t{kVectors} * sms * threads;  // uint4s
    uint4 *x = nullptr, *y = nullptr;
    CHECK(cudaMalloc(&x, count * 16));
    CHECK(cudaMalloc(&y, count * 16));
    CHECK(cudaMemset(x, 0x3c, count * 16));  // float16 1.0586 everywhere
    std::printf("%d SMs x %d threads x %d float16 values\n", sms, threads, kVectors * 8);
    measure<EachOf<IdentityEpilogue>>("identity", timer, x, y, sms, threads);
    measure<EachOf<SiluEpilogue>>("exact: ex2, rcp (float32)", timer, x, y, sms, threads);
    measure<EachOf<SiluTwoMufuEpilogue>>("exact, flush-to-zero ex2, rcp", timer, x, y, sms,
                                         threads);
    measure<EachOf<SiluNewtonEpilogue>>("ex2 (float32), Newton reciprocal", timer, x, y, sms,
                                        threads);
    measure<Pairs<NewtonTwoMufuPairs>>("pairs: Newton and flush-to-zero", timer, x, y, sms,
                                       threads);
    measure<EachOf<OnV<SiluCubicEpilogue>>>("ex2 and a cubic (bounded; one multiply more)", timer,
                                            x, y, sms, threads);
    measure<TanhEx2Halves>("tanh, ex2 (float16x2)", timer, x, y, sms, threads);
    measure<Ex2HalvesRcp>("ex2 (float16x2), rcp (float32)", timer, x, y, sms, threads);
    measure<EachOf<OnV<SiluTanhEpilogue>>>("tanh (float32; the 16-bit form, one multiply more)",
                                           timer, x, y, sms, threads);
    measure<TanhHalvesOnly>("tanh (float16x2) only: a floor", timer, x, y, sms, threads);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
  }
  return 0;
}
