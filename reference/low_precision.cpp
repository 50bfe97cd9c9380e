#include "reference/low_precision.hpp"

#include <cmath>
#include <cstring>
#include <limits>

namespace normbench {

namespace {
uint32_t float_bits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}
float from_float_bits(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// Rounds v to `precision` significant bits with ties to even (nearbyint in the default
// rounding mode), never to a finer spacing than the subnormals' 2^(min_exponent - precision),
// where min_exponent is frexp's exponent of the smallest normal; beyond `max_finite`: infinity.
double round_to_precision(double v, int precision, int min_exponent, double max_finite) {
  if (!std::isfinite(v) || v == 0.0) return v;
  int exponent = 0;
  std::frexp(v, &exponent);  // v = m * 2^exponent, 0.5 <= |m| < 1
  if (exponent < min_exponent) exponent = min_exponent;
  const double rounded =
      std::ldexp(std::nearbyint(std::ldexp(v, precision - exponent)), exponent - precision);
  if (std::fabs(rounded) > max_finite) return std::copysign(INFINITY, v);
  return rounded;
}
}  // namespace

float round_to_dtype(double v, DType dtype) {
  switch (dtype) {
    case DType::float32:
      return static_cast<float>(v);
    case DType::bfloat16:  // float's exponent range, 8 significant bits
      return static_cast<float>(
          round_to_precision(v, 8, -125, static_cast<double>(std::numeric_limits<float>::max())));
    case DType::float16:  // smallest normal 2^-14 (frexp exponent -13), largest 65504
      return static_cast<float>(round_to_precision(v, 11, -13, 65504.0));
  }
  return static_cast<float>(v);
}

uint16_t bfloat16_bits(float value) {
  const uint32_t bits = float_bits(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // stays a NaN
  return static_cast<uint16_t>(bits >> 16);  // the low half is zero for bfloat16 values
}

float bfloat16_value(uint16_t bits) {
  return from_float_bits(static_cast<uint32_t>(bits) << 16);
}

uint16_t float16_bits(float value) {
  const uint16_t sign = std::signbit(value) ? 0x8000u : 0u;
  const double magnitude = std::fabs(static_cast<double>(value));
  if (std::isnan(value)) return sign | 0x7e00u;
  if (std::isinf(value)) return sign | 0x7c00u;
  if (magnitude < 0x1p-14)  // subnormal or zero: multiples of 2^-24
    return sign | static_cast<uint16_t>(magnitude * 0x1p24);
  int exponent = 0;
  const double m = std::frexp(magnitude, &exponent);  // magnitude = m * 2^exponent
  const auto biased = static_cast<uint16_t>(exponent - 1 + 15);
  const auto mantissa = static_cast<uint16_t>((m * 2.0 - 1.0) * 1024.0);
  return sign | static_cast<uint16_t>(biased << 10) | mantissa;
}

float float16_value(uint16_t bits) {
  const double sign = (bits & 0x8000u) ? -1.0 : 1.0;
  const int biased = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (biased == 0x1f)
    return mantissa ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(sign * INFINITY);
  if (biased == 0) return static_cast<float>(sign * std::ldexp(mantissa, -24));
  return static_cast<float>(sign * std::ldexp(1024 + mantissa, biased - 25));
}

}  // namespace normbench
