// `normbench run --devices`: which GPUs, and how the problems of a run are handed to them.
//
// Each GPU gets one harness thread, one device worker and one shared-memory region; the unit of
// work is a problem (with the kernels the run has for it), so that its inputs and float64
// references are made once and every kernel of it is timed alone on one GPU. The problems wait
// in one queue, largest expected cost first (the longest one starts first and does not finish
// last alone), and each harness thread takes the next one when it is free. A problem may take
// its inputs, an output and a timed sample's output in host memory at once (B of
// kernelbench.json: 22 GB); with several in flight, a problem starts only while the host memory
// of those in flight and its own fit in what was available when the run began, so that GPUs
// wait for memory rather than the machine running out of it. Everything here but the queue's
// waiting is a pure function, tested without a GPU.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace normbench {

// --devices as given: "all", or a comma-separated list of CUDA device indices.
struct DeviceSelection {
  bool all = false;
  std::vector<int> indices;  // in the order given
};

// Throws UsageError naming the value: empty items, non-integers, negatives, duplicates.
DeviceSelection parse_devices(const std::string& text);

// The GPUs to run on, given how many the process sees. Throws UsageError for an index that
// does not exist (naming the visible range).
std::vector<int> resolve_devices(const DeviceSelection& selection, int visible,
                                 const std::string& text);

// Host threads of each GPU's harness (inputs, reference, verification) out of `total`: the
// whole budget less one core for each other GPU's worker. The harness's host phases are
// memory-bound bursts, and those of different GPUs overlap only in part: a static split would
// leave a large problem that runs last alone on a fraction of the cores. The loops hand out
// chunks dynamically, so phases that do overlap share the cores without stragglers; the core
// left per other GPU keeps a worker's timed launches from waiting for one.
int threads_per_device(int total, size_t devices);

struct QueuedProblem {
  size_t index = 0;         // into the run's plan
  uint64_t cost = 0;        // expected (work_plan.hpp)
  uint64_t host_bytes = 0;  // the shared host memory it may touch
};

// The order problems are handed out in: with one GPU, the plan's (a one-GPU run is what it has
// always been); with several, largest cost first, ties in plan order.
std::vector<QueuedProblem> handing_order(std::vector<QueuedProblem> problems, size_t devices);

// Which of `pending` (in handing order) may start now: the first whose host memory fits beside
// that of the problems in flight within `budget`. When none is in flight, the first always
// may (alone, a problem too large for the machine is skipped by its runner with the reason).
// No budget (unknown): the first. Returns a position in `pending`, or nullopt: wait.
std::optional<size_t> admissible(const std::vector<QueuedProblem>& pending,
                                 uint64_t in_flight_bytes, size_t in_flight,
                                 std::optional<uint64_t> budget);

// The queue the GPUs' harness threads share.
class ProblemQueue {
 public:
  ProblemQueue(std::vector<QueuedProblem> in_order, std::optional<uint64_t> budget);
  // The next problem to run (its plan index), waiting while none may start; nullopt when none
  // is left or the queue was closed.
  std::optional<size_t> take();
  // A taken problem is done: its host memory is free again.
  void finish(size_t index);
  // No more problems are handed out (a harness thread failed for a reason of its own).
  void close();

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<QueuedProblem> pending_;
  std::vector<QueuedProblem> running_;
  std::optional<uint64_t> budget_;
  bool closed_ = false;
};

}  // namespace normbench
