// Element types on the device: float32, bfloat16 and float16 data with float32 arithmetic.
// Kernels load a value, widen it to float (exact for all three), compute in float, and narrow
// once when they store (round to nearest even, as PyTorch's conversions).
//
// with_element_types() turns a problem's runtime (dtype, param_dtype) into the template
// arguments of a launch: the five pairs a config allows (data in float32, bfloat16 or float16;
// weight and bias in the data's type or float32).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/problem_shape.hpp"

namespace normbench::kernels {

template <class T>
__device__ __forceinline__ float to_float(T v);
template <>
__device__ __forceinline__ float to_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <>
__device__ __forceinline__ float to_float<__half>(__half v) {
  return __half2float(v);
}

template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}

// kCount elements of T in one 16-byte access (4 floats or 8 halves), widened to float.
template <class T>
struct Pack16 {
  static constexpr int kCount = 16 / static_cast<int>(sizeof(T));
  float v[kCount];

  // p must be 16-byte aligned. (Stores narrow through Pack<T, 8>::pack in
  // families/block_per_segment.cuh.)
  __device__ __forceinline__ void load(const T* p) {
    const uint4 raw = *reinterpret_cast<const uint4*>(p);
    const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
    for (int i = 0; i < kCount; ++i) v[i] = to_float<T>(e[i]);
  }
};

template <class T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}, TypeTag<P>{}) with T the data type and P the weight/bias type of `p`.
template <class F>
cudaError_t with_element_types(const ProblemShape& p, F&& f) {
  const bool params_float = p.param_dtype == DType::float32;
  switch (p.dtype) {
    case DType::float32:
      return f(TypeTag<float>{}, TypeTag<float>{});
    case DType::bfloat16:
      return params_float ? f(TypeTag<__nv_bfloat16>{}, TypeTag<float>{})
                          : f(TypeTag<__nv_bfloat16>{}, TypeTag<__nv_bfloat16>{});
    case DType::float16:
      return params_float ? f(TypeTag<__half>{}, TypeTag<float>{})
                          : f(TypeTag<__half>{}, TypeTag<__half>{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace normbench::kernels
