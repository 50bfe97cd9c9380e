// The path of a run in one place:
//   config -> problems -> inputs -> each kernel -> reference -> verify -> time -> report
// The harness (this process) makes inputs and references and judges; every CUDA call, the
// kernels' included, happens in a device worker process (app/worker/), so that a kernel that
// crashes or hangs costs its own result, not the run's.
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

// Runs the plan on the GPU. Throws RuntimeError (exit 3) when there is no usable GPU. A kernel
// that crashes, faults or hangs ends `error` and the run goes on; if the GPU itself becomes
// unusable, report.aborted says why and the kernels that did not run are `not_run`. This
// process must not have made a CUDA call before (its workers are forked from it).
RunReport run_benchmarks(const RunConfig& config, const std::vector<PlannedProblem>& plan,
                         const RunSettings& settings, std::vector<std::string> command_line);

}  // namespace normbench
