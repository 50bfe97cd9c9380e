// The Mann-Whitney U test (Wilcoxon rank-sum) of two independent samples: two-sided, with the
// normal approximation, the tie correction and a continuity correction of 0.5, as in
// scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic").
#pragma once

#include <cstddef>
#include <vector>

namespace normbench {

struct MannWhitneyResult {
  double u_x = 0.0;  // U of the first sample: pairs (x_i, y_j) with x_i > y_j, ties counting 1/2
  double u_y = 0.0;  // n_x * n_y - u_x
  double z = 0.0;    // (max(u_x, u_y) - n_x n_y / 2 - 0.5) / sigma, at least 0; 0 if sigma is 0
  double p_value = 1.0;  // two-sided, in [0, 1]; 1 when either sample is empty or all values tie
};

// Both samples must hold finite values; either may be empty (p_value 1 then).
MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

// The smallest p_value mann_whitney_u gives for samples of these sizes: every value of one
// above every value of the other, none tied. 5 against 5 give 0.012, so no difference between
// them can reach p < 0.01. 1 when either size is 0.
double mann_whitney_smallest_p(size_t nx, size_t ny);

}  // namespace normbench
