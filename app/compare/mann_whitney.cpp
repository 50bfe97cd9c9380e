#include "app/compare/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace normbench {

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  MannWhitneyResult r;
  const double nx = static_cast<double>(x.size());
  const double ny = static_cast<double>(y.size());
  if (x.empty() || y.empty()) return r;

  // Pool both samples (value, from x?) and rank them, ties getting their average rank.
  std::vector<std::pair<double, bool>> pooled;
  pooled.reserve(x.size() + y.size());
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });

  double rank_sum_x = 0.0;
  double tie_term = 0.0;  // sum over groups of tied values of t^3 - t
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double average_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second) rank_sum_x += average_rank;
    tie_term += t * t * t - t;
    i = j;
  }

  const double n = nx + ny;
  r.u_x = rank_sum_x - nx * (nx + 1.0) / 2.0;
  r.u_y = nx * ny - r.u_x;
  const double mean = nx * ny / 2.0;
  const double variance = nx * ny / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
  if (!(variance > 0.0)) return r;  // every value tied: no evidence of a difference
  const double sigma = std::sqrt(variance);
  r.z = std::max(0.0, (std::max(r.u_x, r.u_y) - mean - 0.5) / sigma);
  // Two-sided: 2 * (1 - Phi(z)) = erfc(z / sqrt(2)).
  r.p_value = std::min(1.0, std::erfc(r.z / std::sqrt(2.0)));
  return r;
}

double mann_whitney_smallest_p(size_t nx, size_t ny) {
  if (nx == 0 || ny == 0) return 1.0;
  const double x = static_cast<double>(nx), y = static_cast<double>(ny);
  const double sigma = std::sqrt(x * y * (x + y + 1.0) / 12.0);
  const double z = std::max(0.0, (x * y / 2.0 - 0.5) / sigma);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

}  // namespace normbench
