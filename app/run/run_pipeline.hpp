// The path of a run in one place:
//   config -> problems -> inputs -> each kernel -> reference -> verify -> time -> report
#pragma once

#include <string>
#include <vector>

#include "app/results/run_result.hpp"
#include "kernels/registry.hpp"

namespace normbench {

struct PlannedProblem {
  const ProblemConfig* problem;
  std::vector<const KernelVariant*> kernels;  // registered for its op, after --kernel filters
};

// Applies --problem and --kernel filters; throws UsageError naming an unknown id and the
// allowed ones. Needs no GPU.
std::vector<PlannedProblem> plan_run(const RunConfig& config, const RunSettings& settings);

// Runs the plan on the GPU. Throws RuntimeError (exit 3) when there is no usable GPU; a CUDA
// failure during the run is recorded in report.aborted instead, with what was found so far.
RunReport run_benchmarks(const RunConfig& config, const std::vector<PlannedProblem>& plan,
                         const RunSettings& settings, std::vector<std::string> command_line);

}  // namespace normbench
