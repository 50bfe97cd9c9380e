// 16-byte vectors kept as loaded: 4 registers whatever the element type, widened to float two
// elements at a time when used and rounded two at a time when stored (one F2FP instruction per
// pair of 16-bit values). A row held in registers this way costs half the registers of its
// floats for bfloat16 and float16.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>

namespace normbench::kernels {

template <class To, class From>
__device__ __forceinline__ To bits_as(const From& v) {
  static_assert(sizeof(To) == sizeof(From), "same size only");
  To to;
  memcpy(&to, &v, sizeof(To));
  return to;
}

// One 32-bit word of T: 1 float or 2 16-bit values.
template <class T>
struct Word;
template <>
struct Word<float> {
  static constexpr int kCount = 1;
  static __device__ __forceinline__ void unpack(uint32_t w, float* out) {
    out[0] = __uint_as_float(w);
  }
  static __device__ __forceinline__ uint32_t pack(const float* in) {
    return __float_as_uint(in[0]);
  }
};
template <>
struct Word<__nv_bfloat16> {
  static constexpr int kCount = 2;
  // A bfloat16 is the high half of its float: widened by shifts on the whole word. Through
  // __nv_bfloat162 the compiler split the word into 16-bit halves where it was loaded, and a
  // parameter loaded early then waited for its load there (kernels/NOTES.md, "Decode rows").
  static __device__ __forceinline__ void unpack(uint32_t w, float* out) {
    out[0] = __uint_as_float(w << 16);
    out[1] = __uint_as_float(w & 0xffff0000u);
  }
  static __device__ __forceinline__ uint32_t pack(const float* in) {
    return bits_as<uint32_t>(__floats2bfloat162_rn(in[0], in[1]));
  }
};
template <>
struct Word<__half> {
  static constexpr int kCount = 2;
  static __device__ __forceinline__ void unpack(uint32_t w, float* out) {
    const float2 f = __half22float2(bits_as<__half2>(w));
    out[0] = f.x;
    out[1] = f.y;
  }
  static __device__ __forceinline__ uint32_t pack(const float* in) {
    return bits_as<uint32_t>(__floats2half2_rn(in[0], in[1]));
  }
};

template <class T>
struct RawVector {
  static constexpr int kCount = 16 / static_cast<int>(sizeof(T));
  uint4 raw;

  __device__ __forceinline__ void unpack(float (&out)[kCount]) const {
    constexpr int kPer = Word<T>::kCount;
    Word<T>::unpack(raw.x, out);
    Word<T>::unpack(raw.y, out + kPer);
    Word<T>::unpack(raw.z, out + 2 * kPer);
    Word<T>::unpack(raw.w, out + 3 * kPer);
  }
  // Rounds each value to T once (round to nearest even).
  static __device__ __forceinline__ RawVector pack(const float (&in)[kCount]) {
    constexpr int kPer = Word<T>::kCount;
    return {make_uint4(Word<T>::pack(in), Word<T>::pack(in + kPer), Word<T>::pack(in + 2 * kPer),
                       Word<T>::pack(in + 3 * kPer))};
  }

  // p 16-byte aligned. Streamed once: evict first, so that reused data (weight, bias) stays.
  static __device__ __forceinline__ RawVector load_streaming(const T* p) {
    return {__ldcs(reinterpret_cast<const uint4*>(p))};
  }
  __device__ __forceinline__ void store_streaming(T* p) const {
    __stcs(reinterpret_cast<uint4*>(p), raw);
  }
  // Kept in L2 ahead of other lines (an evict-last policy), as torch.compile's row kernels load
  // x in their first pass.
  static __device__ __forceinline__ RawVector load_evict_last(const T* p) {
    uint64_t policy;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    uint4 v;
    asm volatile("ld.global.L1::evict_last.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "l"(policy));
    return {v};
  }
  // The same without cache hints.
  static __device__ __forceinline__ RawVector load_plain(const T* p) {
    return {*reinterpret_cast<const uint4*>(p)};
  }
  // One 16-byte store (an assignment through uint4* compiled to four 4-byte stores).
  __device__ __forceinline__ void store_plain(T* p) const {
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(raw.x), "r"(raw.y),
                 "r"(raw.z), "r"(raw.w)
                 : "memory");
  }
};

// The kCount parameters at positions pos..pos+kCount-1 widened to float, read through the
// read-only path in 16-byte loads of P (one when P is the data's type, two for float32
// parameters of 16-bit data), or `absent` everywhere when the tensor is not given.
template <int kCount, class P>
__device__ __forceinline__ void load_params(const P* p, int64_t pos, float (&out)[kCount],
                                            float absent) {
  constexpr int kPer = RawVector<P>::kCount;
  static_assert(kCount % kPer == 0, "parameters no wider than the data");
  if (!p) {
#pragma unroll
    for (int i = 0; i < kCount; ++i) out[i] = absent;
    return;
  }
#pragma unroll
  for (int k = 0; k < kCount / kPer; ++k) {
    const RawVector<P> v{__ldg(reinterpret_cast<const uint4*>(p + pos) + k)};
    float part[kPer];
    v.unpack(part);
#pragma unroll
    for (int i = 0; i < kPer; ++i) out[k * kPer + i] = part[i];
  }
}

// The parameters of load_params kept as loaded (16-byte vectors of P), so that they can be loaded
// early and widened when used.
template <int kCount, class P>
struct RawParams {
  static constexpr int kPer = RawVector<P>::kCount;
  uint4 raw[kCount / kPer];

  __device__ __forceinline__ void load(const P* p, int64_t pos) {
    if (!p) return;
#pragma unroll
    for (int k = 0; k < kCount / kPer; ++k)
      raw[k] = __ldg(reinterpret_cast<const uint4*>(p + pos) + k);
  }
  // The same by coherent loads from L2 (ld.relaxed.gpu): ptxas issues these where they are
  // written, while it moves the read-only loads of load() after the arithmetic on data loaded
  // before them. They skip L1, which costs where several blocks of an SM read the same
  // parameters (kernels/NOTES.md, "The early weight, where ptxas puts it").
  __device__ __forceinline__ void load_coherent(const P* p, int64_t pos) {
    if (!p) return;
#pragma unroll
    for (int k = 0; k < kCount / kPer; ++k) {
      uint4& v = raw[k];
      asm volatile("ld.relaxed.gpu.global.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                   : "l"(reinterpret_cast<const uint4*>(p + pos) + k));
    }
  }
  __device__ __forceinline__ void unpack(const P* p, float (&out)[kCount], float absent) const {
#pragma unroll
    for (int k = 0; k < kCount / kPer; ++k) {
      float part[kPer];
      RawVector<P>{raw[k]}.unpack(part);
#pragma unroll
      for (int i = 0; i < kPer; ++i) out[k * kPer + i] = p ? part[i] : absent;
    }
  }
};

}  // namespace normbench::kernels
