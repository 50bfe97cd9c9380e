// Quotients of small non-negative integers by a divisor fixed for a launch, without an integer
// division (some twenty dependent instructions on the GPU, ahead of whatever needs the result):
// n / d = trunc((n + 1/2) * fl(1/d)), the product fused and rounded once.
//
// Exact for 0 <= n < kSmallQuotientDividends and any d >= 1: (n + 1/2) / d lies at least 1/(2d)
// from an integer, and fl(1/d) with the rounding of the product err by under
// (n + 1/2) / d * 2^-23 < 1/(2d). tests/cpu/kernels/small_quotient_test.cpp checks it.
#pragma once

#include <cmath>

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

}  // namespace normbench::kernels
