// Accuracy in units a reader can compare: how much of its tolerance an output uses (the worst
// |y - ref| / (atol + rtol |ref|): 0.43 is "uses 43% of its tolerance"), and for bfloat16 and
// float16 outputs the error in units in the last place of the output's type at the reference
// value (largest, 99.9th percentile) and the share of elements that are the reference exactly
// rounded. Every kernel's output is rounded once at least, so 0.5 ULP is the best there is.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "app/config/config.hpp"

namespace normbench {

// The spacing of `dtype`'s values at |ref| (its unit in the last place there).
double ulp_at(double ref, DType dtype);

struct UlpErrors {
  double max = 0.0;
  double p999 = 0.0;                       // 99.9th percentile, to 1/16 ULP; capped at kUlpCap
  double exactly_rounded = 0.0;            // share of elements equal to the reference rounded once
  static constexpr double kUlpCap = 16.0;  // above this the percentile says "16 or more"
};

struct OutputAccuracy {
  double tolerance_use = 0.0;    // worst |y - ref| / (atol + rtol |ref| + allowance), finite
  double max_abs_error = 0.0;    // worst |y - ref|, finite elements
  std::optional<UlpErrors> ulp;  // bfloat16 and float16 outputs
};

// Adds elements of one output, in any order; tallies of parts merge.
class AccuracyTally {
 public:
  AccuracyTally(DType dtype, const Tolerance& tolerance) : dtype_(dtype), tolerance_(tolerance) {}
  // `allowance`: what a sum output may err beyond atol + rtol |ref| (app/check/sum_tolerance.hpp).
  void add(float value, double ref, double allowance = 0.0);
  void merge(const AccuracyTally& other);
  OutputAccuracy result() const;

 private:
  static constexpr int kBinsPerUlp = 16;
  static constexpr int kBins = static_cast<int>(UlpErrors::kUlpCap) * kBinsPerUlp;
  DType dtype_;
  Tolerance tolerance_;
  double tolerance_use_ = 0.0;
  double max_abs_error_ = 0.0;
  double max_ulp_ = 0.0;
  int64_t counted_ = 0;
  int64_t exactly_rounded_ = 0;
  std::array<int64_t, kBins + 1> bins_{};  // the last: kUlpCap ULP or more
};

}  // namespace normbench
