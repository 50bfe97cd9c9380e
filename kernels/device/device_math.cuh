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

// SiLU for 16-bit outputs with one MUFU operation and three others a value: v sigmoid(v) =
// h + h tanh(h) with h = v / 2, which the kernel folds into its scale and offset (kInputScale,
// epilogue_input_scale: a power of two, so h is exactly v / 2 and costs nothing a value), and
// tanh.approx.f32, whose result t errs by at most 2^-10.99 |t| (PTX ISA). So y errs by at most
// |h| 2^-10.99 |t| <= 2.46e-4 |v|, and below v = -20 it is 0 (a select, not a branch), off by
// |v| e^v < 4.2e-8. For v >= 0, y = h (1 + t) with t >= 0, so the error is at most 2.46e-4 of y.
//   bfloat16 (u = 2^-8; atol 4u, rtol 2u): for v >= 0 a sixteenth of u relative; for
//     -20 <= v < 0 (y near 0, the tolerance mostly its atol) at most 4.9e-3, a third of it.
//   float16 (u = 2^-11): for v >= 0 half of u relative (a quarter of the rtol); for v < 0 within
//     3/4 of the atol (2^-9) only down to v = -5.96, and within it only to -7.9. Below that the
//     GPU's, not the documentation's: over every float32 argument the H100 keeps float16 outputs
//     within 0.50 of the tolerance, their own rounding included (the SiLU GPU test checks every
//     argument on the device it runs on; kernels/NOTES.md).
// float32 (tolerance 1e-5) takes SiluEpilogue. Why one MUFU operation: a kernel's last phase,
// where SiLU does not hide behind memory, is bound by issuing instructions and by the MUFU pipe
// (16 operations a clock an SM on sm_90); float16's earlier exact forms (ex2 and a reciprocal,
// 1.5 MUFU operations and 7 others a value) ran SD 1.5's 2 x 320 x 64 x 64 GroupNorm + SiLU 6.6-7%
// over GroupNorm on the H100, and a bounded cubic in e^-|v| (1 MUFU and 5 others) 3.6-4.4%, with
// only 13% of its outputs correctly rounded (kernels/NOTES.md).
struct SiluTanhEpilogue {
  static constexpr float kInputScale = 0.5f;
  __device__ __forceinline__ float operator()(float h) const {
    float t;
    asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(h));
    return h < -10.0f ? 0.0f : fmaf(h, t, h);
  }
};

// The factor an epilogue expects its argument scaled by (v kInputScale where it declares one,
// else v): a kernel multiplies its per-channel scale and offset by it, so that the product costs
// nothing a value. A power of two, so the scaled value is exactly the scaled v.
template <class Epilogue, class = void>
struct HasInputScale : std::false_type {};
template <class Epilogue>
struct HasInputScale<Epilogue, std::void_t<decltype(Epilogue::kInputScale)>> : std::true_type {};
// Whether f is 2^k: halved or doubled to 1 exactly (no NaN, infinity or zero is).
__host__ __device__ constexpr bool is_power_of_two(float f) {
  if (!(f > 0.0f) || f > 3.4e38f) return false;
  while (f < 1.0f) f *= 2.0f;
  while (f > 1.0f) f *= 0.5f;
  return f == 1.0f;
}
static_assert(is_power_of_two(0.5f) && is_power_of_two(1.0f) && !is_power_of_two(0.3f) &&
              !is_power_of_two(0.0f));
template <class Epilogue>
__host__ __device__ constexpr float epilogue_input_scale() {
  if constexpr (HasInputScale<Epilogue>::value) {
    static_assert(is_power_of_two(Epilogue::kInputScale), "an exact scale: a power of two");
    return Epilogue::kInputScale;
  } else {
    return 1.0f;
  }
}

// A kernel's per-channel scale and offset (y = x scale + offset) times the epilogue's input
// scale, once a channel, so that the epilogue gets its argument scaled at no cost a value.
template <class Epilogue>
__device__ __forceinline__ void fold_input_scale(float& scale, float& offset) {
  constexpr float kInputScale = epilogue_input_scale<Epilogue>();
  if constexpr (kInputScale != 1.0f) {
    scale *= kInputScale;
    offset *= kInputScale;
  }
}

// The epilogue on N values in registers (a vector's, or an unrolled step's).
template <class Epilogue, int N>
__device__ __forceinline__ void apply_epilogue(const Epilogue& epilogue, float (&v)[N]) {
#pragma unroll
  for (int e = 0; e < N; ++e) v[e] = epilogue(v[e]);
}

// The epilogue a kernel applies to outputs of type T: SiLU's cheaper form for 16-bit types.
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
  using type = SiluTanhEpilogue;
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
