#include "app/render/log_axis.hpp"

#include <algorithm>
#include <cmath>

namespace normbench {

namespace {

// The powers of ten a double holds: 1e-323 is the smallest that is not 0 (a subnormal),
// 1e308 the largest below infinity.
constexpr int kLowestExponent = -323;
constexpr int kHighestExponent = 308;
constexpr int kMostDecadeTicks = 12;

double power_of_ten(int exponent) {
  return std::pow(10.0, exponent);
}

}  // namespace

LogAxis::LogAxis(double lo, double hi) {
  const auto exponent = [](double v) { return std::isfinite(v) && v > 0.0 ? std::log10(v) : 0.0; };
  // Clamped before the conversion to int; a value beyond the clamp is drawn at the axis end.
  lo_exponent_ = static_cast<int>(
      std::clamp(std::floor(exponent(lo)), double{kLowestExponent}, double{kHighestExponent - 1}));
  hi_exponent_ = static_cast<int>(
      std::clamp(std::ceil(exponent(hi)), double{kLowestExponent + 1}, double{kHighestExponent}));
  if (hi_exponent_ <= lo_exponent_) hi_exponent_ = lo_exponent_ + 1;
}

double LogAxis::lo() const {
  return power_of_ten(lo_exponent_);
}

double LogAxis::hi() const {
  return power_of_ten(hi_exponent_);
}

double LogAxis::fraction(double v) const {
  return (std::log10(v) - lo_exponent_) / (hi_exponent_ - lo_exponent_);
}

std::vector<double> LogAxis::ticks(int fine_decades) const {
  const int decades = hi_exponent_ - lo_exponent_;
  const bool fine = decades <= fine_decades;
  const int step = (decades + kMostDecadeTicks - 1) / kMostDecadeTicks;
  std::vector<double> out;
  for (int e = lo_exponent_; e <= hi_exponent_; e += step) {
    out.push_back(power_of_ten(e));
    if (fine && e < hi_exponent_)  // 2 and 5 of the top decade lie beyond the axis
      for (double m : {2.0, 5.0}) out.push_back(m * power_of_ten(e));
  }
  return out;
}

}  // namespace normbench
