// Exact host arithmetic of the low-precision types: rounding to bfloat16 and float16 as PyTorch's
// conversions do it (round to nearest, ties to even; float16 with subnormals and overflow to
// infinity), and their bit patterns. Every bfloat16 and float16 value is exactly a float, so the
// harness keeps low-precision tensors as floats holding representable values, and only the
// device sees the 16-bit encodings.
#pragma once

#include <cstdint>

#include "kernels/problem_shape.hpp"

namespace normbench {

// The value of `dtype` nearest to v (ties to even), as a float; NaN stays NaN.
float round_to_dtype(double v, DType dtype);

// Bit patterns of values already representable in the type (round_to_dtype's results).
uint16_t bfloat16_bits(float value);
float bfloat16_value(uint16_t bits);
uint16_t float16_bits(float value);
float float16_value(uint16_t bits);

}  // namespace normbench
