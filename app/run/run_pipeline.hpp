// The path of a run in one place:
//   config -> problems -> inputs -> each kernel -> reference -> verify -> time -> report
// The harness (this process) makes inputs and references and judges; every CUDA call, the
// kernels' included, happens in a device worker process (app/worker/), so that a kernel that
// crashes or hangs costs its own result, not the run's. With several GPUs (--devices), each has
// its own harness thread and worker, and the problems are shared out among them
// (app/run/device_schedule.hpp).
#pragma once

#include <string>
#include <vector>

#include "app/results/run_result.hpp"
#include "app/run/work_plan.hpp"
#include "kernels/registry.hpp"

namespace normbench {

// Runs the plan on the GPUs of settings.devices (empty: settings.device). Throws RuntimeError
// (exit 3) when there is no usable GPU, UsageError (exit 2) for a device that does not exist or
// GPUs of different models without settings.allow_mixed_devices. A kernel that crashes, faults
// or hangs ends `error` and the run goes on; if a GPU itself becomes unusable, report.aborted
// says why, that GPU takes no more problems (the others go on) and the kernels that did not run
// are `not_run`. This process must not have made a CUDA call before (its workers are forked
// from it).
RunReport run_benchmarks(const RunConfig& config, const std::vector<PlannedProblem>& plan,
                         const RunSettings& settings, std::vector<std::string> command_line);

}  // namespace normbench
