// Device helpers shared by the kernel families: the per-element affine + epilogue step, a warp
// sum in fixed order, and numerically careful statistics.
//
// Why the "shift": the mean of data like 1000 + N(0,1) must be known to ~1e-6 for a 1e-5
// tolerance, far below float's resolution at 1000 (6e-5). Every kernel subtracts one element
// of the segment (the shift, exact for nearby values) before summing, and normalizes as
// ((x - shift) - delta) * rstd with delta = mean - shift: small numbers throughout.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/device/vector_io.cuh"

namespace normbench::kernels {

struct SegmentStats {
  float shift;  // an element of the segment
  float delta;  // mean - shift
  float rstd;   // 1 / sqrt(biased variance + eps)
};

// What a kernel computes of a segment: LayerNorm and GroupNorm subtract the mean (centered),
// RMSNorm divides by the root mean square only (rms), and add_rms_norm first forms and stores
// s = x + residual, rounded once to the data's type, then normalizes that rounded s (add_rms).
enum class Norm { centered, rms, add_rms };

// Sum over a full warp by butterfly: a fixed order, every lane gets the same bits.
template <class V>
__device__ __forceinline__ V butterfly_sum(V v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ __forceinline__ float normalize(float x, const SegmentStats& s) {
  return ((x - s.shift) - s.delta) * s.rstd;
}

// Plain LayerNorm / GroupNorm output.
struct IdentityEpilogue {
  __device__ __forceinline__ float operator()(float v) const { return v; }
};

// Exact GELU as torch.nn.functional.gelu (approximate='none') with CUDA's erff (2 ulp), then
// times `scale`. (The tanh approximation misses a 1e-5 tolerance.)
struct GeluScaleErffEpilogue {
  float scale;
  __device__ __forceinline__ float operator()(float v) const {
    return 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f)) * scale;
  }
};

// SiLU v * sigmoid(v) = v / (1 + e^-v), as torch.nn.functional.silu, on the GroupNorm value in
// registers (group_norm_silu): no extra memory traffic, two MUFU operations (ex2 in __expf,
// rcp in __fdividef) and three FP32 ones per element. __expf errs by 2 + 1.2 |v| ulps and
// __fdividef by 2: a few 1e-7 relative where |v| < 20, and beyond that the result is v
// (v > 0) or below 1e-7 (v < 0); far inside float32's 1e-5 tolerance. For v < -87, e^-v is
// above 2^126 and __fdividef gives 0 (exactly about v e^v, below 1e-36). silu's slope lies in
// (-0.1, 1.1), so it passes the GroupNorm value's own error on at most 1.1 times.
struct SiluEpilogue {
  __device__ __forceinline__ float operator()(float v) const {
    return __fdividef(v, 1.0f + __expf(-v));
  }
};

// SiLU with one MUFU operation instead of two, for bfloat16 outputs: v sigmoid(v) = h + h tanh(h)
// with h = v / 2 and tanh.approx.f32, whose result t errs by at most 2^-10.99 |t| <= 2^-10.99.
// So y errs by at most |h| 2^-10.99 = 2.44e-4 |v|:
//   v >= 0 (y >= h): 2.44e-4 relative, an eighth of bfloat16's unit roundoff u = 2^-8;
//   -20 <= v < 0 (y near 0, where the tolerance is mostly its atol, 4u = 2^-6): at most
//     4.9e-3, a third of it;
//   v < -20: y is 0 (a select, not a branch), off by |v| e^v < 4.2e-8.
// float16's atol (2^-9) would hold only for v >= -8, and a branch to the exact form there cost
// more than the MUFU operation it saves (measured on the H100, kernels/NOTES.md), so float16
// takes SiluFloat16Epilogue (below) and float32 (tolerance 1e-5) SiluEpilogue.
struct SiluTanhEpilogue {
  __device__ __forceinline__ float operator()(float v) const {
    const float h = 0.5f * v;
    float t;
    asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(h));
    return v < -20.0f ? 0.0f : fmaf(h, t, h);
  }
};

// SiLU for float16 outputs with one MUFU operation (ex2) and the reciprocal on the FMA pipe.
// z = e^-|v| lies in (0, 1], so d = 1 + z lies in (1, 2], where 24/17 - 8/17 d is the best
// line through 1/d: d r0 = 1 - e0 with |e0| <= 1/17. Each Newton step r += r (1 - d r) squares
// the error: 17^-4 = 1.2e-5 after two, then a few float32 roundings. sigmoid(v) is r for v >= 0
// and z r for v < 0 (no cancellation for either sign). With ex2's error (2 ulps, plus 1.2 |v|
// ulps of the rounded argument), y errs by about 2e-5 relative: a 25th of float16's unit
// roundoff, not enough for float32's 1e-5 tolerance. Large |v|: z flushes to 0, so y is
// v (1 - 1.2e-5) for v > 0 and -0 for v < 0; no infinity enters the reciprocal.
struct SiluNewtonEpilogue {
  __device__ __forceinline__ float operator()(float v) const {
    float z;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(z) : "f"(fabsf(v) * -1.44269504088896341f));
    const float d = 1.0f + z;
    float r = fmaf(-8.0f / 17.0f, d, 24.0f / 17.0f);
    r = fmaf(r, fmaf(-d, r, 1.0f), r);
    r = fmaf(r, fmaf(-d, r, 1.0f), r);
    return v * (v < 0.0f ? z * r : r);
  }
};

// SiLU as SiluEpilogue, v / (1 + e^-v) with ex2 and rcp, but their flush-to-zero forms: two
// MUFU operations and three others, none of __expf's and __fdividef's range fix-ups. Errors as
// SiluEpilogue's or smaller; below v = -88 e^-v is infinite and y is -0.
struct SiluTwoMufuEpilogue {
  __device__ __forceinline__ float operator()(float v) const {
    float e, r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(v * -1.44269504088896341f));
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.0f + e));
    return v * r;
  }
};

// SiLU for float16 outputs. A kernel's last phase, where SiLU does not hide behind memory, is
// bound both by the MUFU pipe (16 operations a clock an SM on sm_90) and by issuing
// instructions: SiluNewtonEpilogue takes one MUFU operation and about eleven others,
// SiluTwoMufuEpilogue two and three. Pairs of values (apply_epilogue) take one of each, 1.5
// MUFU operations and 7 others a value, which loads both limits about evenly: on the H100,
// grid_registers' SD 1.5 shape ran its SiLU 0.7 us over GroupNorm with either form alone and
// 0.5 us with pairs (kernels/NOTES.md). One value at a time: the Newton form.
struct SiluFloat16Epilogue {
  static constexpr int kWidth = 2;  // apply_epilogue passes pairs
  __device__ __forceinline__ float operator()(float v) const { return SiluNewtonEpilogue{}(v); }
  __device__ __forceinline__ void operator()(float (&v)[2]) const {
    v[0] = SiluNewtonEpilogue{}(v[0]);
    v[1] = SiluTwoMufuEpilogue{}(v[1]);
  }
};

// How many values an epilogue takes at once: kWidth where it declares one, else 1.
template <class Epilogue, class = void>
struct EpilogueWidth : std::integral_constant<int, 1> {};
template <class Epilogue>
struct EpilogueWidth<Epilogue, std::void_t<decltype(Epilogue::kWidth)>>
    : std::integral_constant<int, Epilogue::kWidth> {};

// The epilogue on N values in registers, kWidth at a time where it takes several (and N is a
// multiple), else one at a time.
template <class Epilogue, int N>
__device__ __forceinline__ void apply_epilogue(const Epilogue& epilogue, float (&v)[N]) {
  constexpr int kWidth = EpilogueWidth<Epilogue>::value;
  if constexpr (kWidth > 1 && N % kWidth == 0) {
#pragma unroll
    for (int e = 0; e < N; e += kWidth) {
      float group[kWidth];
#pragma unroll
      for (int k = 0; k < kWidth; ++k) group[k] = v[e + k];
      epilogue(group);
#pragma unroll
      for (int k = 0; k < kWidth; ++k) v[e + k] = group[k];
    }
  } else {
#pragma unroll
    for (int e = 0; e < N; ++e) v[e] = epilogue(v[e]);
  }
}

// The epilogue a kernel applies to outputs of type T: SiLU's cheaper forms for 16-bit types.
template <class T, class Epilogue>
struct EpilogueForData {
  using type = Epilogue;
};
template <>
struct EpilogueForData<__nv_bfloat16, SiluEpilogue> {
  using type = SiluTanhEpilogue;
};
template <>
struct EpilogueForData<__half, SiluEpilogue> {
  using type = SiluFloat16Epilogue;
};
template <class T, class Epilogue>
using EpilogueFor = typename EpilogueForData<T, Epilogue>::type;

constexpr float4 kOnes4 = {1.f, 1.f, 1.f, 1.f};
constexpr float4 kZeros4 = {0.f, 0.f, 0.f, 0.f};

// GELU(v) * scale with erf from a branch-free polynomial instead of erff (which branches on
// |x| and so runs both paths in a warp with mixed signs and sizes). With t = |v| / sqrt 2,
// erfc(t) = 2^p(t), p a degree-11 fit of log2(erfc) on [0, 4] (t clamped there: erfc(4) is
// below float's resolution of 1); then 1 + erf(v/sqrt 2) = 2 - erfc(t) for v >= 0 and erfc(t)
// for v < 0, so no cancellation. Error of 1 + erf: below 2e-7 absolute for v >= 0, 4e-6
// relative for v < 0 (where it is below 1): GELU within 4e-7 of the exact value for |v| <= 20
// (float32 simulation against float64, before exp2f's 2-ulp error).
struct GeluScalePolyEpilogue {
  float scale;
  __device__ __forceinline__ float operator()(float v) const {
    const float t = fminf(fabsf(v) * 0.70710678118654752440f, 4.0f);
    float p = 1.1336010885543146e-07f;
    p = fmaf(p, t, -2.9844850359950215e-06f);
    p = fmaf(p, t, 3.493388430797495e-05f);
    p = fmaf(p, t, -0.00023737107403576374f);
    p = fmaf(p, t, 0.0010043588699772954f);
    p = fmaf(p, t, -0.0024059941060841084f);
    p = fmaf(p, t, 7.954031752888113e-05f);
    p = fmaf(p, t, 0.02782256342470646f);
    p = fmaf(p, t, -0.14838029444217682f);
    p = fmaf(p, t, -0.9184222221374512f);
    p = fmaf(p, t, -1.6279093027114868f);
    p = fmaf(p, t, 3.292587535952407e-08f);
    const float erfc_t = exp2f(p);
    const float one_plus_erf = v >= 0.0f ? 2.0f - erfc_t : erfc_t;
    return 0.5f * v * one_plus_erf * scale;
  }
};

// weight/bias per element of a row (LayerNorm); null pointers mean no affine.
struct RowParams {
  const float* weight;
  const float* bias;

  // The parameters of one row, indexed by position in the row.
  struct Segment {
    const float* weight;
    const float* bias;
    __device__ __forceinline__ float2 at(int64_t pos) const {
      return weight ? make_float2(__ldg(weight + pos), __ldg(bias + pos)) : make_float2(1.f, 0.f);
    }
    // Elements pos..pos+3; pos % 4 == 0 and 16-byte aligned rows (row size % 4 == 0).
    __device__ __forceinline__ WeightBias4 at4(int64_t pos) const {
      if (!weight) return {kOnes4, kZeros4};
      return {__ldg(reinterpret_cast<const float4*>(weight + pos)),
              __ldg(reinterpret_cast<const float4*>(bias + pos))};
    }
  };
  __device__ __forceinline__ Segment for_segment(int64_t) const { return {weight, bias}; }
};

// weight/bias per channel (GroupNorm over NCHW): element `pos` of group `segment` lies in
// channel (segment % groups) * channels_per_group + pos / spatial.
struct ChannelParams {
  const float* weight;
  const float* bias;
  int64_t groups;
  int64_t channels_per_group;
  int64_t spatial;

  // The parameters of one group, indexed by position in the group.
  struct Segment {
    const float* weight;  // at the group's first channel
    const float* bias;
    int64_t spatial;
    bool narrow;  // positions fit in 32 bits: divide in 32 bits, 4x cheaper than in 64
    __device__ __forceinline__ int64_t channel(int64_t pos) const {
      return narrow ? static_cast<uint32_t>(pos) / static_cast<uint32_t>(spatial) : pos / spatial;
    }
    __device__ __forceinline__ float2 at(int64_t pos) const {
      if (!weight) return make_float2(1.f, 0.f);
      const int64_t c = channel(pos);
      return make_float2(__ldg(weight + c), __ldg(bias + c));
    }
    // Elements pos..pos+3; they may straddle channels unless spatial % 4 == 0.
    __device__ __forceinline__ WeightBias4 at4(int64_t pos) const {
      if (spatial % 4 == 0) {
        const float2 wb = at(pos);
        return {make_float4(wb.x, wb.x, wb.x, wb.x), make_float4(wb.y, wb.y, wb.y, wb.y)};
      }
      const float2 a = at(pos), b = at(pos + 1), c = at(pos + 2), d = at(pos + 3);
      return {make_float4(a.x, b.x, c.x, d.x), make_float4(a.y, b.y, c.y, d.y)};
    }
  };
  __device__ __forceinline__ Segment for_segment(int64_t segment) const {
    const int64_t first = (segment % groups) * channels_per_group;
    return {weight ? weight + first : nullptr, weight ? bias + first : nullptr, spatial,
            channels_per_group * spatial <= int64_t{0xffffffff}};
  }
};

template <class Epilogue>
__device__ __forceinline__ float finish(float normalized, float2 wb, const Epilogue& epilogue) {
  return epilogue(fmaf(normalized, wb.x, wb.y));
}

// The output of four consecutive elements.
template <class Epilogue>
__device__ __forceinline__ float4 finish4(float4 x, const SegmentStats& s, const WeightBias4& p,
                                          const Epilogue& epilogue) {
  return make_float4(epilogue(fmaf(normalize(x.x, s), p.w.x, p.b.x)),
                     epilogue(fmaf(normalize(x.y, s), p.w.y, p.b.y)),
                     epilogue(fmaf(normalize(x.z, s), p.w.z, p.b.z)),
                     epilogue(fmaf(normalize(x.w, s), p.w.w, p.b.w)));
}

}  // namespace normbench::kernels
