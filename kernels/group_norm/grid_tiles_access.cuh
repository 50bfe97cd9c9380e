// Device pieces of group_norm.grid_tiles (grid_tiles_kernel.cuh): the kernel's arguments,
// accesses of 16 bytes or one element of any element type.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/device/device_math.cuh"
#include "kernels/device/element_types.cuh"
#include "kernels/group_norm/grid_tiles_plan.hpp"

namespace normbench::kernels {

// Loads of a thread in flight at once, per loop step.
constexpr int kGridTilesUnroll = 4;
// The same in NCHW's normalize loop: two, which left its 64 registers unspilled (float16 SiLU
// spilled 20 bytes with four, float32 72) and measured faster with SiLU (kernels/NOTES.md).
constexpr int kGridTilesNormalizeUnroll = 2;

struct GridTilesArgs {
  GridTilesGeometry geo;
  const void* x;
  void* y;
  const void* weight;  // null: no weight (scale 1)
  const void* bias;    // null: no bias (offset 0)
  bool params_float;   // weight and bias are float32 (else the data's type)
  bool cooperative;    // launched cooperatively: tiles of a group lie in several blocks
  double eps;
  float2* partials;  // [sample * groups + group][tile of the part]: sums of x - shift, squared
  // Per (sample, channel): y = (x - shift) * scale + offset. For 16-bit data the shift is
  // folded into the offset (float32 has no room for it: see merge_group).
  float* scale;
  float* offset;
  float* shift;
};

// kVec elements of T moved as one access: 16 bytes, or one element where rows are unaligned.
template <class T, int kVec>
struct TileAccess {
  static constexpr int kBytes = kVec * static_cast<int>(sizeof(T));
  static_assert(kBytes == 16 || kVec == 1, "an access is 16 bytes or one element");
  using Raw = std::conditional_t<kBytes == 16, uint4,
                                 std::conditional_t<kBytes == 4, unsigned, unsigned short>>;

  // Normal priority: a tile's accesses that are not held in shared memory are read again by
  // the normalization, from L2 when they are still there.
  static __device__ __forceinline__ Raw load_kept(const T* p) {
    return __ldg(reinterpret_cast<const Raw*>(p));
  }
  // Evict first: held in shared memory, or read for the last time.
  static __device__ __forceinline__ Raw load_streaming(const T* p) {
    return __ldcs(reinterpret_cast<const Raw*>(p));
  }
  static __device__ __forceinline__ void store_streaming(T* p, const Raw& v) {
    __stcs(reinterpret_cast<Raw*>(p), v);
  }
  static __device__ __forceinline__ float get(const Raw& r, int i) {
    return to_float<T>(reinterpret_cast<const T*>(&r)[i]);
  }
  static __device__ __forceinline__ void set(Raw& r, int i, float v) {
    reinterpret_cast<T*>(&r)[i] = from_float<T>(v);
  }
};

// One element of x as float (x is read-only for the whole kernel).
template <class T>
__device__ __forceinline__ float load_element(const T* p) {
  return TileAccess<T, 1>::get(TileAccess<T, 1>::load_kept(p), 0);
}

// Weight or bias of channel c as float; `absent` where the tensor is not given.
template <class T>
__device__ __forceinline__ float load_param(const void* p, int64_t c, bool as_float, float absent) {
  if (!p) return absent;
  return as_float ? __ldg(static_cast<const float*>(p) + c)
                  : load_element(static_cast<const T*>(p) + c);
}

// kVec floats written by other blocks of this launch (L2, never the non-coherent path).
template <int kVec>
__device__ __forceinline__ void load_coefficients(const float* p, float (&out)[kVec]) {
  if constexpr (kVec % 4 == 0) {
#pragma unroll
    for (int j = 0; j < kVec / 4; ++j) {
      const float4 v = __ldcg(reinterpret_cast<const float4*>(p) + j);
      out[4 * j] = v.x;
      out[4 * j + 1] = v.y;
      out[4 * j + 2] = v.z;
      out[4 * j + 3] = v.w;
    }
  } else {
#pragma unroll
    for (int e = 0; e < kVec; ++e) out[e] = __ldcg(p + e);
  }
}

}  // namespace normbench::kernels
