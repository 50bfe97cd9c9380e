#include "app/worker/device_worker.hpp"

#include <memory>

#include "app/device/activity_trace.hpp"
#include "app/device/cuda_check.hpp"
#include "app/device/device_context.hpp"
#include "app/device/nvtx_ranges.hpp"
#include "app/timing/copy_bandwidth.hpp"
#include "app/timing/gpu_conditions.hpp"
#include "app/timing/kernel_timer.hpp"
#include "app/timing/latency_floor.hpp"
#include "app/util/errors.hpp"
#include "app/worker/problem_session.hpp"
#include "app/worker/worker_protocol.hpp"

namespace normbench {

namespace {

using json = nlohmann::json;

struct WorkerState {
  std::unique_ptr<DeviceContext> device;
  std::unique_ptr<L2Evictor> evictor;
  std::unique_ptr<GpuConditions> conditions;  // null where NVML is unavailable (info.unmonitored)
  std::unique_ptr<ProblemSession> session;
  size_t problem = 0;     // the loaded problem's index
  NvtxSpan problem_span;  // from its loading to the next problem's
};

// "rms_norm_bf16_32k_4096 / rms_norm.default: timing"
std::string range_name(const WorkerWorld& world, const WorkerState& state, size_t kernel,
                       const char* what) {
  return world.problems.at(state.problem)->id + " / " +
         world.kernels.at(state.problem).at(kernel)->id + ": " + what;
}

json handle(const json& request, const WorkerWorld& world, WorkerState& state,
            WorkerChannel& channel) {
  const std::string cmd = request.at("cmd");
  if (cmd == "open") {
    state.device = open_device(world.device);
    state.evictor = std::make_unique<L2Evictor>(state.device->info.l2_bytes, state.device->stream);
    state.conditions = GpuConditions::open(world.device, state.device->info.unmonitored);
    return {{"device", to_json(state.device->info)}, {"caps", to_json(state.device->caps)}};
  }
  if (!state.device) return {{"error", "the device is not open"}, {"usage", false}};
  if (cmd == "copy_bandwidth") {
    const CopyBandwidth copy = measure_copy_bandwidth(*state.device, *state.evictor);
    activity_trace::collect();  // the copies are the harness's: nothing to account
    return {{"copy_bandwidth", to_json(copy)}};
  }
  if (cmd == "latency_floor") {
    const LatencyFloor floor = measure_latency_floor(*state.device, *state.evictor);
    activity_trace::collect();  // the harness's launches too
    return {{"latency_floor", to_json(floor)}};
  }
  if (cmd == "problem") {
    const size_t i = request.at("index");
    state.session.reset();  // frees the previous problem's memory first
    state.problem = i;
    state.problem_span = NvtxSpan(world.problems.at(i)->id);
    state.session = std::make_unique<ProblemSession>(
        *state.device, state.conditions.get(), *world.problems.at(i), world.kernels.at(i),
        world.shared, request.at("exclude").get<std::vector<size_t>>(), [&](size_t k) {
          channel.send({{"planning", k}});
        });
    json plans = json::array();
    for (const KernelPlan& plan : state.session->plans()) plans.push_back(to_json(plan));
    if (auto why = state.session->allocate()) {
      state.session.reset();
      return {{"skip", *why}, {"plans", plans}};
    }
    return {{"ok", true}, {"plans", plans}};
  }
  if (!state.session) return {{"error", "no problem is loaded"}, {"usage", false}};
  if (cmd == "upload") {
    state.session->upload(request.value("fresh", false));
    return {{"ok", true}};
  }
  if (cmd == "launch") {
    const size_t k = request.at("kernel");
    const NvtxRange range(range_name(world, state, k, "checked launch"));
    return to_json(state.session->launch(k, request.at("save")));
  }
  if (cmd == "time") {
    const TimingRequest timing = timing_request_from(request);
    const NvtxRange range(range_name(world, state, timing.kernel, "timing"));
    return to_json(state.session->time(timing, *state.evictor, [&](size_t sample) {
      channel.send({{"progress", sample}});
    }));
  }
  return {{"error", "unknown request " + cmd}, {"usage", false}};
}

}  // namespace

int serve_device(WorkerChannel& channel, const WorkerWorld& world) {
  WorkerState state;
  json request;
  while (channel.receive(request)) {
    try {
      channel.send(handle(request, world, state, channel));
    } catch (const UsageError& e) {  // e.g. --device names no GPU
      channel.send({{"error", e.what()}, {"usage", true}});
    } catch (const RuntimeError& e) {
      // A CUDA call failed: after a kernel's fault the context is unusable, and only a new
      // process gets a new one.
      channel.send({{"fault", e.what()}});
      return kExitRuntime;
    } catch (const std::exception& e) {
      channel.send({{"fault", std::string("worker error: ") + e.what()}});
      return kExitRuntime;
    }
  }
  return kExitOk;
}

}  // namespace normbench
