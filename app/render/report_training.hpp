// Forward and backward side by side: each backward problem of the reports paired with the
// forward problem of the same geometry and format (shape, normalized dims or groups, dtypes,
// layout, weight, bias and eps, its op the backward op's forward one), as a training step runs
// both. `normbench report llm.json diffusion.json training.json` draws it where the reports
// hold such pairs.
#pragma once

#include <vector>

#include "app/render/report_format.hpp"
#include "app/render/report_model.hpp"

namespace normbench {

struct TrainingPair {
  const ReportProblem* forward = nullptr;
  const ReportProblem* backward = nullptr;
};

// In the order of the backward problems; a backward problem without a forward twin is left out.
std::vector<TrainingPair> training_pairs(const ReportModel& model);
// One row a pair: the two defaults' medians, their sum, torch.compile's sum and the ratio.
ReportTable training_table(const ReportModel& model);

}  // namespace normbench
