#include "app/run/worker_client.hpp"

#include "app/util/errors.hpp"

namespace normbench {

namespace {
using json = nlohmann::json;

// The harness's own requests (open, uploads, allocation) may take a while on large problems
// but never hang on a healthy GPU.
constexpr double kHarnessTimeoutS = 600.0;
}  // namespace

WorkerClient::WorkerClient(WorkerWorld world) : world_(std::move(world)) {}

json WorkerClient::request(const json& message, double timeout_s) {
  ensure_running();
  try {
    process_->send(message);
  } catch (const WorkerLost&) {
    process_.reset();
    throw;
  }
  return await_reply(timeout_s);
}

json WorkerClient::await_reply(double timeout_s) {
  try {
    json reply = process_->receive(timeout_s);
    while (reply.contains("progress") || reply.contains("planning")) {
      if (reply.contains("planning")) planning_ = reply.at("planning").get<size_t>();
      reply = process_->receive(timeout_s);
    }
    if (reply.contains("fault")) {
      process_->stop();  // it exits by itself; this reaps it
      process_.reset();
      throw WorkerLost("failed on the device: " + reply.at("fault").get<std::string>());
    }
    if (reply.contains("error")) {
      const std::string what = reply.at("error");
      if (reply.value("usage", false)) throw UsageError(what);
      throw RuntimeError("device worker: " + what);
    }
    return reply;
  } catch (const WorkerLost&) {
    process_.reset();
    throw;
  }
}

json WorkerClient::harness_request(const json& message) {
  // A lost worker here is the harness's problem, not a kernel's: try once more with a fresh
  // worker before giving up on the GPU.
  try {
    return request(message, kHarnessTimeoutS);
  } catch (const WorkerLost&) {
  }
  try {
    return request(message, kHarnessTimeoutS);
  } catch (const WorkerLost& e) {
    throw RuntimeError("the device worker failed twice on " + message.at("cmd").get<std::string>() +
                       ": " + e.what());
  }
}

void WorkerClient::ensure_running() {
  if (process_) return;
  const WorkerWorld world = world_;
  process_ = std::make_unique<WorkerProcess>(
      [world](WorkerChannel& channel) { return serve_device(channel, world); });
  if (!device_.name.empty()) restore();  // a replacement: bring it to where the last one was
}

void WorkerClient::restore() {
  auto step = [&](const json& message) {
    process_->send(message);
    json reply = process_->receive(kHarnessTimeoutS);
    while (reply.contains("planning")) reply = process_->receive(kHarnessTimeoutS);
    if (!reply.contains("device") && !reply.contains("ok"))
      throw RuntimeError("a fresh device worker could not be brought back (" +
                         message.at("cmd").get<std::string>() + "): " + reply.dump());
  };
  try {
    step({{"cmd", "open"}});
    if (problem_) step({{"cmd", "problem"}, {"index", *problem_}, {"exclude", excluded_}});
    if (problem_ && uploaded_) step({{"cmd", "upload"}, {"fresh", uploaded_fresh_}});
  } catch (const WorkerLost& e) {
    process_.reset();
    throw RuntimeError(std::string("a fresh device worker was lost at once: ") + e.what());
  }
}

void WorkerClient::open() {
  json reply;
  try {
    reply = request({{"cmd", "open"}}, kHarnessTimeoutS);
  } catch (const WorkerLost& e) {
    std::string what = e.what();
    const std::string prefix = "failed on the device: ";
    if (what.rfind(prefix, 0) == 0) what = what.substr(prefix.size());
    throw RuntimeError(what);
  }
  device_ = device_info_from(reply.at("device"));
  caps_ = device_caps_from(reply.at("caps"));
}

CopyBandwidth WorkerClient::copy_bandwidth() {
  return copy_bandwidth_from(harness_request({{"cmd", "copy_bandwidth"}}).at("copy_bandwidth"));
}

LatencyFloor WorkerClient::latency_floor() {
  return latency_floor_from(harness_request({{"cmd", "latency_floor"}}).at("latency_floor"));
}

WorkerClient::LoadedProblem WorkerClient::load_problem(size_t index) {
  problem_.reset();
  excluded_.clear();
  uploaded_ = false;
  LoadedProblem loaded;
  const std::vector<const KernelVariant*>& kernels = world_.kernels.at(index);
  for (size_t k = 0; k < kernels.size(); ++k)
    if (const auto lost = lost_planning_.find(kernels[k]); lost != lost_planning_.end()) {
      loaded.planning_failures[k] = lost->second;
      excluded_.push_back(k);
    }
  // Planning runs each kernel's own code: a crash there is that kernel's. The kernel the
  // worker was planning is left out and a fresh worker plans the rest.
  int harness_losses = 0;
  for (;;) {
    planning_.reset();
    try {
      const json reply =
          request({{"cmd", "problem"}, {"index", index}, {"exclude", excluded_}}, kHarnessTimeoutS);
      for (const json& plan : reply.at("plans")) loaded.plans.push_back(plan_summary_from(plan));
      if (reply.contains("skip")) {
        loaded.skip = reply.at("skip").get<std::string>();
        return loaded;
      }
      problem_ = index;
      return loaded;
    } catch (const WorkerLost& e) {
      if (planning_) {
        loaded.planning_failures[*planning_] = std::string("while planning: ") + e.what();
        excluded_.push_back(*planning_);
        if (kernels.at(*planning_)->python_submission)
          lost_planning_[kernels.at(*planning_)] = "not planned again: planning it on problem " +
                                                   world_.problems.at(index)->id +
                                                   " lost the worker (" + e.what() + ")";
      } else if (++harness_losses == 2) {
        throw RuntimeError(std::string("the device worker failed twice on problem: ") + e.what());
      }
    }
  }
}

void WorkerClient::upload(bool fresh) {
  uploaded_ = false;
  uploaded_fresh_ = fresh;
  harness_request({{"cmd", "upload"}, {"fresh", fresh}});
  uploaded_ = true;
}

void WorkerClient::begin_upload(bool fresh) {
  uploaded_ = false;
  uploaded_fresh_ = fresh;
  upload_sent_ = false;
  ensure_running();
  try {
    process_->send({{"cmd", "upload"}, {"fresh", fresh}});
    upload_sent_ = true;
  } catch (const WorkerLost&) {
    process_.reset();  // finish_upload() uploads again, with a fresh worker
  }
}

void WorkerClient::finish_upload() {
  if (upload_sent_) {
    upload_sent_ = false;
    try {
      await_reply(kHarnessTimeoutS);
      uploaded_ = true;
      return;
    } catch (const WorkerLost&) {
    }
  }
  upload(uploaded_fresh_);
}

LaunchReport WorkerClient::launch(size_t kernel, bool save_output, double timeout_s) {
  return launch_report_from(
      request({{"cmd", "launch"}, {"kernel", kernel}, {"save", save_output}}, timeout_s));
}

TimingReport WorkerClient::time(const TimingRequest& timing, double timeout_s) {
  return timing_report_from(request(to_json(timing), timeout_s));
}

}  // namespace normbench
