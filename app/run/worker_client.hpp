// The harness's side of the device worker: starts it, sends it requests with a watchdog, and
// after it was lost (a kernel crashed it, hung, or made its CUDA context unusable) starts a
// fresh one on the next request and brings it back to where the old one was (device open,
// problem loaded, inputs uploaded), so that the run goes on with the next kernel.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/worker/device_worker.hpp"
#include "app/worker/worker_protocol.hpp"

namespace normbench {

class WorkerClient {
 public:
  explicit WorkerClient(WorkerWorld world);

  // Opens the device (starting the worker). Throws RuntimeError (no GPU: exit 3) or
  // UsageError (no such device: exit 2).
  void open();
  const DeviceInfo& device() const { return device_; }
  const DeviceCaps& caps() const { return caps_; }
  CopyBandwidth copy_bandwidth();
  LatencyFloor latency_floor();

  // Problem `index` as the worker planned and allocated it.
  struct LoadedProblem {
    std::optional<std::string> skip;  // why the problem does not fit, if it does not
    std::vector<PlanSummary> plans;   // one per kernel
    // Kernels whose own planning code crashed a worker, and how: they are left out.
    std::map<size_t, std::string> planning_failures;
  };
  // Loads problem `index`. Throws RuntimeError if the harness's own requests fail twice in a
  // row (the GPU is unusable).
  LoadedProblem load_problem(size_t index);
  // Uploads the inputs now in shared memory; with `fresh`, the fresh inputs too.
  void upload(bool fresh);
  // The same in two halves, so that the harness computes the reference meanwhile:
  // begin_upload() sends the request, finish_upload() waits for it (and uploads again with a
  // fresh worker if the first was lost).
  void begin_upload(bool fresh);
  void finish_upload();

  // Kernel requests: throw WorkerLost, naming what happened, when the worker was lost.
  // `timeout_s` bounds the wait for each message (each sample, when timing).
  LaunchReport launch(size_t kernel, bool save_output, double timeout_s);
  TimingReport time(const TimingRequest& request, double timeout_s);

 private:
  nlohmann::json request(const nlohmann::json& message, double timeout_s);
  nlohmann::json await_reply(double timeout_s);
  nlohmann::json harness_request(const nlohmann::json& message);
  void ensure_running();
  void restore();

  WorkerWorld world_;
  std::unique_ptr<WorkerProcess> process_;
  DeviceInfo device_;
  DeviceCaps caps_;
  std::optional<size_t> problem_;  // loaded in the worker (to restore after a loss)
  std::vector<size_t> excluded_;   // kernels of problem_ not to plan (their planning crashed)
  bool uploaded_ = false;
  bool uploaded_fresh_ = false;     // the last upload had the fresh inputs
  bool upload_sent_ = false;        // begin_upload() sent a request finish_upload() has not awaited
  std::optional<size_t> planning_;  // the kernel the worker said it was planning last
  // Python submissions whose planning (importing the module, building its extension) lost a
  // worker, and how: the next problem would lose one again, a hang costing the watchdog's
  // whole wait each time, so they are not planned again.
  std::map<const KernelVariant*, std::string> lost_planning_;
};

}  // namespace normbench
