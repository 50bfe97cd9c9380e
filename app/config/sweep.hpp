// Sweeps: a problem that gives "sweep": {axis: [values...]} stands for one problem per point of
// its axes (every combination; axes in alphabetical order, the last varying fastest), so that "how
// does RMSNorm scale from 1 to 32K rows" is one entry of a config and one line chart of the report.
// Axes: "rows" (shape[0]), "shape[k]" (any dim; one of normalized_shape's moves with it), "dtype",
// "groups" (the GroupNorm ops); one axis a dim, so not both rows and shape[0]. Each point's id is
// the problem's id and the point ("decode.rows-8", "gn.dtype-float16"); its resolved config says
// which family and point it is ("sweep": {"family", "point"}).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/util/json_checks.hpp"

namespace normbench {

// One point of a sweep: the problem as if written out by hand, and where it came from.
struct SweepPoint {
  nlohmann::json problem;  // the swept problem with this point's values, its id, no "sweep"
  std::string path;        // "/problems/3[rows=8]": for messages about this point
  nlohmann::json point;    // {"rows": 8}
};

// The points of `problem` (at JSON path problem.path()), which has a "sweep". Fails with the
// JSON path and what is allowed when the sweep is malformed.
std::vector<SweepPoint> expand_sweep(const CheckedJson& problem);

// Bounds, so that a config cannot ask for millions of problems.
inline constexpr size_t kMaxSweepValues = 64;   // per axis
inline constexpr size_t kMaxSweepPoints = 256;  // per problem

}  // namespace normbench
