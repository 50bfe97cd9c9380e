// One problem, end to end, on the harness's side: inputs and reference here, every launch in
// the device worker, every verdict here.
//   for each trial: inputs -> upload -> reference -> each kernel: checked launch -> verify
//   last trial:     each kernel that passed: a second launch (determinism) -> checked timing
#pragma once

#include <optional>
#include <vector>

#include "app/results/run_result.hpp"
#include "app/run/worker_client.hpp"
#include "app/util/progress.hpp"
#include "app/worker/shared_tensors.hpp"
#include "kernels/registry.hpp"

namespace normbench {

struct RunContext {
  WorkerClient& worker;
  char* shared;  // the shared host memory, large enough for every problem of the run
  const RunSettings& settings;
  const std::optional<CopyBandwidth>& copy_bandwidth;
  const std::optional<LatencyFloor>& latency_floor;
  uint64_t l2_bytes;  // of the device: output up to this size may stay in L2 when a kernel ends
  ProgressLine& progress;
};

// A kernel's result before anything ran: what the variant says of itself (id, description,
// whether it is the baseline, the plugin it came from); the one place that makes one.
KernelResult kernel_result_for(const KernelVariant& variant);

// The trials a run makes of `problem`: as configured (or --trials), and at least two when
// timing: the second-to-last trial's inputs, verified, are the fresh inputs that timed samples
// the kernel cannot predict run on.
int trials_to_run(const ProblemConfig& problem, const RunSettings& settings);

// Runs `kernels` on problem `index` (`problem`), filling `result` as it goes, so that a
// RuntimeError (the GPU became unusable) still leaves what was found; kernels whose trials
// did not all run stay `not_run`.
void run_problem(size_t index, const ProblemConfig& problem,
                 const std::vector<const KernelVariant*>& kernels, const RunContext& context,
                 ProblemResult& result);

}  // namespace normbench
