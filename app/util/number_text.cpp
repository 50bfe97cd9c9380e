#include "app/util/number_text.hpp"

#include <fmt/format.h>

#include <cmath>

namespace normbench {

std::string fixed_digits(double v, int decimals) {
  if (std::isfinite(v) && std::fabs(v) >= 1e6) return fmt::format("{:.3g}", v);
  return fmt::format("{:.{}f}", v, decimals);
}

}  // namespace normbench
