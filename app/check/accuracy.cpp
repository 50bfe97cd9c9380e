#include "app/check/accuracy.hpp"

#include <algorithm>
#include <cmath>

#include "reference/low_precision.hpp"

namespace normbench {

double ulp_at(double ref, DType dtype) {
  // Significand bits after the point and the least normal exponent of each type.
  const int mantissa = dtype == DType::bfloat16 ? 7 : dtype == DType::float16 ? 10 : 23;
  const int min_exponent = dtype == DType::float16 ? -14 : -126;
  const double magnitude = std::fabs(ref);
  int exponent = magnitude > 0.0 ? std::ilogb(magnitude) : min_exponent;
  exponent = std::max(exponent, min_exponent);  // subnormals: the spacing of the least binade
  return std::ldexp(1.0, exponent - mantissa);
}

void AccuracyTally::add(float value, double ref, double allowance) {
  const double v = static_cast<double>(value);
  if (!std::isfinite(v) || !std::isfinite(ref)) return;
  const double err = std::fabs(v - ref);
  max_abs_error_ = std::max(max_abs_error_, err);
  const double allowed = tolerance_.atol + tolerance_.rtol * std::fabs(ref) + allowance;
  if (allowed > 0.0) tolerance_use_ = std::max(tolerance_use_, err / allowed);
  if (dtype_ == DType::float32) return;
  const double ulps = err / ulp_at(ref, dtype_);
  max_ulp_ = std::max(max_ulp_, ulps);
  ++counted_;
  if (value == round_to_dtype(ref, dtype_)) ++exactly_rounded_;
  const int bin = ulps >= UlpErrors::kUlpCap ? kBins : static_cast<int>(ulps * kBinsPerUlp);
  ++bins_[static_cast<size_t>(bin)];
}

void AccuracyTally::merge(const AccuracyTally& other) {
  tolerance_use_ = std::max(tolerance_use_, other.tolerance_use_);
  max_abs_error_ = std::max(max_abs_error_, other.max_abs_error_);
  max_ulp_ = std::max(max_ulp_, other.max_ulp_);
  counted_ += other.counted_;
  exactly_rounded_ += other.exactly_rounded_;
  for (size_t i = 0; i < bins_.size(); ++i) bins_[i] += other.bins_[i];
}

OutputAccuracy AccuracyTally::result() const {
  OutputAccuracy a;
  a.tolerance_use = tolerance_use_;
  a.max_abs_error = max_abs_error_;
  if (dtype_ == DType::float32 || counted_ == 0) return a;
  UlpErrors u;
  u.max = max_ulp_;
  u.exactly_rounded = static_cast<double>(exactly_rounded_) / static_cast<double>(counted_);
  // The upper edge of the bin where the cumulative count reaches 99.9%.
  const auto target = static_cast<int64_t>(std::ceil(0.999 * static_cast<double>(counted_)));
  int64_t cumulative = 0;
  u.p999 = UlpErrors::kUlpCap;
  for (int i = 0; i < kBins; ++i) {
    cumulative += bins_[static_cast<size_t>(i)];
    if (cumulative >= target) {
      u.p999 = std::min(static_cast<double>(i + 1) / kBinsPerUlp, u.max);
      break;
    }
  }
  a.ulp = u;
  return a;
}

}  // namespace normbench
