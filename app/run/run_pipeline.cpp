#include "app/run/run_pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <exception>
#include <memory>
#include <thread>

#include "app/run/device_schedule.hpp"
#include "app/run/problem_runner.hpp"
#include "app/run/worker_client.hpp"
#include "app/util/errors.hpp"
#include "app/util/host_memory.hpp"
#include "app/util/progress.hpp"
#include "app/util/shared_memory.hpp"
#include "app/util/timestamp.hpp"
#include "app/worker/shared_tensors.hpp"

namespace normbench {

namespace {
// Enough shared host memory for the largest problem of the plan (reserved, touched as used).
size_t shared_bytes(const std::vector<PlannedProblem>& plan) {
  size_t bytes = 0;
  for (const auto& planned : plan)
    bytes = std::max(bytes, shared_layout(planned.problem->shape).end);
  return bytes;
}

// A problem that no GPU started (the run stopped first): its kernels stay not_run.
ProblemResult not_started(const PlannedProblem& planned) {
  ProblemResult problem;
  problem.config = planned.problem;
  for (const KernelVariant* v : planned.kernels) problem.kernels.push_back(kernel_result_for(*v));
  return problem;
}

// One GPU of the run: its worker, the shared memory that worker sees, and how its part ended.
struct Lane {
  int device = 0;
  SharedMemory shared;
  std::unique_ptr<WorkerClient> worker;
  std::optional<CopyBandwidth> copy_bandwidth;
  std::optional<LatencyFloor> latency_floor;
  std::string aborted;         // why this GPU stopped taking problems: it became unusable
  std::exception_ptr failure;  // anything else that ended its thread: rethrown after the run
};

void check_same_model(const std::vector<Lane>& lanes, bool allow_mixed) {
  const DeviceInfo& first = lanes.front().worker->device();
  for (const Lane& lane : lanes) {
    const DeviceInfo& d = lane.worker->device();
    if (d.name != first.name && !allow_mixed)
      throw UsageError(fmt::format(
          "--devices: GPU {} is \"{}\" but GPU {} is \"{}\"; the timings of one report must come "
          "from one GPU model (--allow-mixed-devices runs on them anyway)",
          first.index, first.name, d.index, d.name));
  }
}

// A problem a lane took: however its run ends, its kernels are marked with the GPU they were
// given to, and its host memory is freed and given back to the queue for the next problems.
class TakenProblem {
 public:
  TakenProblem(ProblemQueue& queue, const Lane& lane, size_t index, ProblemResult& result)
      : queue_(queue), lane_(lane), index_(index), result_(result) {
    result_.device = lane.device;
  }
  ~TakenProblem() {
    for (KernelResult& k : result_.kernels) k.device = lane_.device;
    lane_.shared.release_from(0);  // the next problem's tensors start fresh
    queue_.finish(index_);
  }
  TakenProblem(const TakenProblem&) = delete;
  TakenProblem& operator=(const TakenProblem&) = delete;

 private:
  ProblemQueue& queue_;
  const Lane& lane_;
  size_t index_;
  ProblemResult& result_;
};

// A GPU's harness: measures its copy bandwidth and latency floor, then runs problems from the queue
// until none is left. `results` is shared by the lanes, but each entry is written by the one lane
// that took it.
void run_lane(Lane& lane, const std::vector<PlannedProblem>& plan, const RunSettings& settings,
              ProblemQueue& queue, std::vector<ProblemResult>& results, ProgressLine& progress) {
  try {
    if (settings.timing) {
      progress.update("measuring copy bandwidth");
      lane.copy_bandwidth = lane.worker->copy_bandwidth();
      progress.update("measuring the latency floor");
      lane.latency_floor = lane.worker->latency_floor();
    }
    const RunContext context{*lane.worker,
                             lane.shared.data(),
                             settings,
                             lane.copy_bandwidth,
                             lane.latency_floor,
                             lane.worker->device().l2_bytes,
                             progress};
    while (const std::optional<size_t> i = queue.take()) {
      const TakenProblem taken(queue, lane, *i, results[*i]);
      run_problem(*i, *plan[*i].problem, plan[*i].kernels, context, results[*i]);
    }
  } catch (const RuntimeError& e) {
    lane.aborted = e.what();  // this GPU is unusable; the others go on
  } catch (...) {
    lane.failure = std::current_exception();
    queue.close();  // a failure of the harness itself: the others stop after their problem
  }
}
}  // namespace

RunReport run_benchmarks(const RunConfig& config, const std::vector<PlannedProblem>& plan,
                         const RunSettings& settings, std::vector<std::string> command_line) {
  RunReport report;
  report.created_at = utc_now_iso8601();
  report.command_line = std::move(command_line);
  report.config = &config;
  report.settings = settings;
  const std::vector<int> devices =
      settings.devices.empty() ? std::vector<int>{settings.device} : settings.devices;
  const bool several = devices.size() > 1;

  // Every worker is started here, while the harness has one thread: a forked child gets a copy
  // of the forking thread alone. (A replacement worker is forked later from its GPU's thread;
  // the child only touches its pipes, malloc, which glibc makes safe across fork, and CUDA,
  // which this process never initialised.)
  ProgressLine progress;
  std::vector<Lane> lanes(devices.size());
  for (size_t d = 0; d < devices.size(); ++d) {
    Lane& lane = lanes[d];
    lane.device = devices[d];
    lane.shared = SharedMemory(shared_bytes(plan));
    WorkerWorld world;
    world.device = lane.device;
    world.shared = lane.shared.data();
    for (const auto& planned : plan) {
      world.problems.push_back(planned.problem);
      world.kernels.push_back(planned.kernels);
    }
    lane.worker = std::make_unique<WorkerClient>(world);
    progress.update(several ? fmt::format("starting the device worker of GPU {}", lane.device)
                            : "starting the device worker");
    lane.worker->open();  // no GPU: RuntimeError, nothing to report
  }
  check_same_model(lanes, settings.allow_mixed_devices);
  report.device = lanes.front().worker->device();

  std::vector<QueuedProblem> queued;
  for (size_t i = 0; i < plan.size(); ++i)
    queued.push_back({i, problem_cost(plan[i], settings.trials_override),
                      shared_layout(plan[i].problem->shape).end});
  ProblemQueue queue(handing_order(std::move(queued), lanes.size()),
                     several ? available_host_memory() : std::nullopt);
  RunSettings lane_settings = settings;
  lane_settings.threads = threads_per_device(settings.threads, lanes.size());
  std::vector<ProblemResult> results(plan.size());
  if (!several) {
    run_lane(lanes.front(), plan, lane_settings, queue, results, progress);
  } else {
    std::deque<ProgressLine> lines;  // one per lane, each writing through `progress`
    std::vector<std::thread> threads;
    for (Lane& lane : lanes) {
      lines.emplace_back(progress, fmt::format("GPU {}: ", lane.device));
      threads.emplace_back(run_lane, std::ref(lane), std::cref(plan), std::cref(lane_settings),
                           std::ref(queue), std::ref(results), std::ref(lines.back()));
    }
    for (std::thread& t : threads) t.join();
  }
  progress.clear();
  for (const Lane& lane : lanes)
    if (lane.failure) std::rethrow_exception(lane.failure);

  for (size_t i = 0; i < plan.size(); ++i)
    report.problems.push_back(results[i].device ? std::move(results[i]) : not_started(plan[i]));
  for (const Lane& lane : lanes) {
    report.devices.push_back({lane.worker->device(), lane.copy_bandwidth, lane.latency_floor});
    if (lane.aborted.empty()) continue;
    report.aborted += (report.aborted.empty() ? "" : "; ") +
                      (several ? fmt::format("GPU {}: ", lane.device) : std::string()) +
                      lane.aborted;
  }
  report.copy_bandwidth = lanes.front().copy_bandwidth;
  report.latency_floor = lanes.front().latency_floor;
  if (!report.aborted.empty()) mark_unfinished(report, {});
  report.exit_code = exit_code_for(report);
  return report;
}

}  // namespace normbench
