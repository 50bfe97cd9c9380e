#include "app/run/run_pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>

#include "app/run/problem_runner.hpp"
#include "app/run/worker_client.hpp"
#include "app/util/errors.hpp"
#include "app/util/progress.hpp"
#include "app/util/shared_memory.hpp"
#include "app/worker/shared_tensors.hpp"

namespace normbench {

namespace {
bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}
}  // namespace

std::vector<PlannedProblem> plan_run(const RunConfig& config, const RunSettings& settings) {
  std::vector<std::string> problem_ids, kernel_ids;
  for (const auto& p : config.problems) problem_ids.push_back(p.id);
  for (const auto& k : registered_kernels()) kernel_ids.push_back(k.id);
  for (const auto& id : settings.problem_filter)
    if (!contains(problem_ids, id))
      throw UsageError("--problem " + id + ": no such problem in " + config.source +
                       "; allowed: " + join(problem_ids));
  for (const auto& id : settings.kernel_filter)
    if (!contains(kernel_ids, id))
      throw UsageError("--kernel " + id + ": no such kernel; allowed: " + join(kernel_ids));

  std::vector<PlannedProblem> plan;
  for (const auto& problem : config.problems) {
    if (!settings.problem_filter.empty() && !contains(settings.problem_filter, problem.id))
      continue;
    PlannedProblem planned{&problem, {}};
    for (const auto& kernel : registered_kernels())
      if (kernel.op == problem.shape.op &&
          (settings.kernel_filter.empty() || contains(settings.kernel_filter, kernel.id)))
        planned.kernels.push_back(&kernel);
    plan.push_back(std::move(planned));
  }
  return plan;
}

namespace {
// Enough shared host memory for the largest problem of the plan (reserved, touched as used).
size_t shared_bytes(const std::vector<PlannedProblem>& plan) {
  size_t bytes = 0;
  for (const auto& planned : plan)
    bytes = std::max(bytes, shared_layout(planned.problem->shape).end);
  return bytes;
}

// The problems of the plan that the run did not reach, with their kernels (not_run).
std::vector<ProblemResult> not_reached(const RunReport& report,
                                       const std::vector<PlannedProblem>& plan) {
  std::vector<ProblemResult> problems;
  for (size_t i = report.problems.size(); i < plan.size(); ++i) {
    ProblemResult problem;
    problem.config = plan[i].problem;
    for (const KernelVariant* v : plan[i].kernels) {
      KernelResult k;
      k.id = v->id;
      k.description = v->description;
      k.is_baseline = v->is_baseline;
      problem.kernels.push_back(std::move(k));
    }
    problems.push_back(std::move(problem));
  }
  return problems;
}
}  // namespace

RunReport run_benchmarks(const RunConfig& config, const std::vector<PlannedProblem>& plan,
                         const RunSettings& settings, std::vector<std::string> command_line) {
  RunReport report;
  report.created_at = utc_now_iso8601();
  report.command_line = std::move(command_line);
  report.config = &config;
  report.settings = settings;

  const SharedMemory shared(shared_bytes(plan));
  WorkerWorld world;
  world.device = settings.device;
  world.shared = shared.data();
  for (const auto& planned : plan) {
    world.problems.push_back(planned.problem);
    world.kernels.push_back(planned.kernels);
  }
  WorkerClient worker(world);
  ProgressLine progress;
  progress.update("starting the device worker");
  worker.open();  // no GPU: RuntimeError, nothing to report
  report.device = worker.device();
  try {
    if (settings.timing) {
      progress.update("measuring copy bandwidth");
      report.copy_bandwidth = worker.copy_bandwidth();
    }
    const RunContext context{
        worker, shared.data(), settings, report.copy_bandwidth, worker.device().l2_bytes, progress};
    for (size_t i = 0; i < plan.size(); ++i) {
      report.problems.emplace_back();
      run_problem(i, *plan[i].problem, plan[i].kernels, context, report.problems.back());
      shared.release_from(0);  // the next problem's tensors start fresh
    }
  } catch (const RuntimeError& e) {
    report.aborted = e.what();
    mark_unfinished(report, not_reached(report, plan));
  }
  progress.clear();
  report.exit_code = exit_code_for(report);
  return report;
}

}  // namespace normbench
