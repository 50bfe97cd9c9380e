// Numbers for tables and messages: fixed point, but never hundreds of digits.
#pragma once

#include <string>

namespace normbench {

// `decimals` after the point, or three significant digits from a million on ("2.16e+300"):
// a report's absurd number (a hand-edited median of 1e-300 ms) must not print 300 digits.
std::string fixed_digits(double v, int decimals);

}  // namespace normbench
