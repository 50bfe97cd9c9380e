// The quotient and remainder of an offset by a divisor fixed for a launch, carried along as the
// offset grows by a fixed stride: one division to start, then an add, a compare and a carry a
// step, instead of an integer division a step (some twenty instructions on the GPU, one of them
// a reciprocal on the MUFU pipe). grid_tiles' NCHW normalize finds each step's channel this way.
//
// Exact while every offset stays below 2^32 and the divisor below 2^31 (the remainder plus the
// stride's is then below twice the divisor). tests/cpu/kernels/stepping_quotient_test.cpp checks
// it against the division.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define NORMBENCH_STEPPING_HOST_DEVICE __host__ __device__
#else
#define NORMBENCH_STEPPING_HOST_DEVICE
#endif

namespace normbench::kernels {

struct SteppingQuotient {
  uint32_t quotient, remainder;  // of the current offset by the divisor
  uint32_t divisor, stride_quotient, stride_remainder;

  NORMBENCH_STEPPING_HOST_DEVICE SteppingQuotient(uint32_t offset, uint32_t stride,
                                                  uint32_t divisor_)
      : quotient(offset / divisor_),
        remainder(offset - quotient * divisor_),
        divisor(divisor_),
        stride_quotient(stride / divisor_),
        stride_remainder(stride - stride_quotient * divisor_) {}

  // The offset moves on by the stride.
  NORMBENCH_STEPPING_HOST_DEVICE void advance() {
    remainder += stride_remainder;
    quotient += stride_quotient;
    if (remainder >= divisor) {
      remainder -= divisor;
      ++quotient;
    }
  }
};

}  // namespace normbench::kernels
