#include "app/check/sum_tolerance.hpp"

#include <cmath>

namespace normbench {

double sum_allowance(int64_t terms, double magnitude) {
  return kSumToleranceLambda * std::sqrt(static_cast<double>(terms)) * kFloat32Roundoff * magnitude;
}

}  // namespace normbench
