// One problem, end to end: inputs -> each kernel -> reference -> verify -> time.
#pragma once

#include <optional>
#include <vector>

#include "app/device/device_context.hpp"
#include "app/results/run_result.hpp"
#include "app/timing/kernel_timer.hpp"
#include "app/util/progress.hpp"
#include "kernels/registry.hpp"

namespace normbench {

struct RunContext {
  const DeviceContext& device;
  const L2Evictor& evictor;
  const RunSettings& settings;
  const std::optional<CopyBandwidth>& copy_bandwidth;
  ProgressLine& progress;
};

// Runs `kernels` (all of the problem's op) on `problem`, filling `result` as it goes so that a
// RuntimeError (a CUDA failure that leaves the device unusable) still leaves what was found.
void run_problem(const ProblemConfig& problem, const std::vector<const KernelVariant*>& kernels,
                 const RunContext& context, ProblemResult& result);

}  // namespace normbench
