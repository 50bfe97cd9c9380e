#include "app/run/run_pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>

#include "app/device/device_context.hpp"
#include "app/run/problem_runner.hpp"
#include "app/timing/copy_bandwidth.hpp"
#include "app/timing/kernel_timer.hpp"
#include "app/util/errors.hpp"
#include "app/util/progress.hpp"

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

RunReport run_benchmarks(const RunConfig& config, const std::vector<PlannedProblem>& plan,
                         const RunSettings& settings, std::vector<std::string> command_line) {
  RunReport report;
  report.created_at = utc_now_iso8601();
  report.command_line = std::move(command_line);
  report.config = &config;
  report.settings = settings;

  const auto device = open_device(settings.device);
  report.device = device->info;
  ProgressLine progress;
  try {
    const L2Evictor evictor(device->info.l2_bytes, device->stream);
    if (settings.timing) {
      progress.update("measuring copy bandwidth");
      report.copy_bandwidth = measure_copy_bandwidth(*device, evictor);
    }
    const RunContext context{*device, evictor, settings, report.copy_bandwidth, progress};
    for (const auto& planned : plan) {
      report.problems.emplace_back();
      run_problem(*planned.problem, planned.kernels, context, report.problems.back());
    }
  } catch (const RuntimeError& e) {
    report.aborted = e.what();
  }
  progress.clear();
  report.exit_code = exit_code_for(report);
  return report;
}

}  // namespace normbench
