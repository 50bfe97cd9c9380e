// Quotients by a divisor fixed for a launch without an integer division a use (some twenty
// dependent instructions on the GPU, ahead of whatever needs the result): small_quotient for
// small non-negative integers, SteppingQuotient (below) for offsets that grow by a fixed stride.
//
// small_quotient: n / d = trunc((n + 1/2) * fl(1/d)), the product fused and rounded once. Exact for
// 0 <= n < kSmallQuotientDividends and any d >= 1: (n + 1/2) / d lies at least 1/(2d) from an
// integer, and fl(1/d) with the rounding of the product err by under (n + 1/2) / d * 2^-23 <
// 1/(2d). tests/cpu/kernels/small_quotient_test.cpp checks it.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define NORMBENCH_QUOTIENT_HOST_DEVICE __host__ __device__
#else
#define NORMBENCH_QUOTIENT_HOST_DEVICE
#endif

namespace normbench::kernels {

constexpr int kSmallQuotientDividends = 1 << 22;

// The divisor's part of small_quotient, computed once on the host.
inline float small_quotient_inverse(int divisor) {
  return 1.0f / static_cast<float>(divisor);
}

NORMBENCH_QUOTIENT_HOST_DEVICE inline int small_quotient(int n, float inverse) {
  return static_cast<int>(fmaf(static_cast<float>(n), inverse, 0.5f * inverse));
}

// The quotient and remainder of an offset by a divisor fixed for a launch, carried along as the
// offset grows by a fixed stride: one division to start, then an add, a compare and a carry a
// step, instead of an integer division a step (one of its instructions a reciprocal on the MUFU
// pipe). grid_tiles' NCHW normalize finds each step's channel this way. Exact while every offset
// stays below 2^32 and the divisor below 2^31 (the remainder plus the stride's is then below
// twice the divisor). tests/cpu/kernels/stepping_quotient_test.cpp checks it against the
// division.
struct SteppingQuotient {
  uint32_t quotient, remainder;  // of the current offset by the divisor
  uint32_t divisor, stride_quotient, stride_remainder;

  NORMBENCH_QUOTIENT_HOST_DEVICE SteppingQuotient(uint32_t offset, uint32_t stride,
                                                  uint32_t divisor_)
      : quotient(offset / divisor_),
        remainder(offset - quotient * divisor_),
        divisor(divisor_),
        stride_quotient(stride / divisor_),
        stride_remainder(stride - stride_quotient * divisor_) {}

  // The offset moves on by the stride.
  NORMBENCH_QUOTIENT_HOST_DEVICE void advance() {
    remainder += stride_remainder;
    quotient += stride_quotient;
    if (remainder >= divisor) {
      remainder -= divisor;
      ++quotient;
    }
  }
};

}  // namespace normbench::kernels
