// The device worker: the child process that owns the run's CUDA context and makes every CUDA
// call of the run, kernels' included. It serves the requests of app/worker/worker_protocol.hpp
// until the harness closes the pipe, or until a CUDA error makes its context unusable (then it
// answers {fault} and exits, and the harness starts a fresh one).
#pragma once

#include <vector>

#include "app/config/config.hpp"
#include "app/worker/worker_process.hpp"
#include "kernels/registry.hpp"

namespace normbench {

// What the worker may be asked to run: problem `i` of a request is problems[i] with kernels[i].
struct WorkerWorld {
  int device = 0;
  std::vector<const ProblemConfig*> problems;
  std::vector<std::vector<const KernelVariant*>> kernels;
  char* shared = nullptr;  // the shared host memory (app/worker/shared_tensors.hpp)
};

// The worker's main loop; returns its exit code.
int serve_device(WorkerChannel& channel, const WorkerWorld& world);

}  // namespace normbench
