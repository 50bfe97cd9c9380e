// Log axes of the report's charts: whole decades around the data, and their ticks. Reports may
// hold any finite time, subnormal or near DBL_MAX: the axis stays within the powers of ten that
// a double holds (1e-323 to 1e308) and the ticks are few, so that drawing always ends.
#pragma once

#include <vector>

namespace normbench {

class LogAxis {
 public:
  // From the decade at or below `lo` to the decade at or above `hi` (at least one decade);
  // both > 0 and finite.
  LogAxis(double lo, double hi);

  double lo() const;
  double hi() const;
  // 0 at lo(), 1 at hi(); outside [0, 1] for values beyond the axis.
  double fraction(double v) const;
  // A tick at each decade, and at 2 and 5 of each where the axis spans at most `fine_decades`;
  // over more than 12 decades, one every so many decades: at most 13 ticks then.
  std::vector<double> ticks(int fine_decades) const;

 private:
  int lo_exponent_;
  int hi_exponent_;
};

}  // namespace normbench
