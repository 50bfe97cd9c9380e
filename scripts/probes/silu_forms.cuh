// SiLU forms the kernels no longer take, kept for the probes that measure them against the
// shipped one (silu_tail.cu, silu_every_float.cu; kernels/NOTES.md has their histories).
#pragma once

#include "kernels/device/device_math.cuh"

namespace normbench::probes {

// float16's exact forms before the 16-bit tanh form. One MUFU operation (ex2) and the reciprocal
// by Newton steps on the FMA pipe: z = e^-|v| in (0, 1], d = 1 + z in (1, 2], 24/17 - 8/17 d the
// best line through 1/d, two Newton steps.
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
// v / (1 + e^-v) by the flush-to-zero ex2 and rcp: two MUFU operations and three others.
struct SiluTwoMufuEpilogue {
  __device__ __forceinline__ float operator()(float v) const {
    float e, r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(v * -1.44269504088896341f));
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.0f + e));
    return v * r;
  }
};
// Pairs: the first value by the Newton form, the second by two MUFU operations.
struct NewtonTwoMufuPairs {
  __device__ __forceinline__ void operator()(float (&v)[2]) const {
    v[0] = SiluNewtonEpilogue{}(v[0]);
    v[1] = SiluTwoMufuEpilogue{}(v[1]);
  }
};

// float16 by one ex2 and five others on u = v / 2 (kInputScale): y = u + |u| w with w = tanh|u|
// from a cubic in z = e^-2|u|, fitted by scripts/probes/silu_cubic_fit.py. Bounded by ex2's
// documented error: at most 0.53 of float16's tolerance for any argument, but only 13% of
// outputs correctly rounded.
struct SiluCubicEpilogue {
  static constexpr float kInputScale = 0.5f;
  __device__ __forceinline__ float operator()(float u) const {
    const float a = fabsf(u);
    float z;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(z) : "f"(a * -2.88539008177792681f));  // 2 log2(e)
    // w = 1 + z (c1 + z (c2 + z c3)) by Horner's rule.
    float p = fmaf(-0.7170286178588867f, z, 1.6454429626464844f);
    p = fmaf(p, z, -1.9725888967514038f);
    const float w = fmaf(p, z, 1.0f);
    return fmaf(a, w, u);
  }
};

// A form that takes a scaled argument, on v itself (a multiply a value more than the kernels
// pay, which fold the scale into their coefficients).
template <class Form>
struct OnV {
  __device__ __forceinline__ float operator()(float v) const {
    return Form{}(v * kernels::epilogue_input_scale<Form>());
  }
};

}  // namespace normbench::probes
