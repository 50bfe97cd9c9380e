// Merging loaded reports by problem id and deriving the cross-report speedups.
#include "app/render/report_model.hpp"

#include <algorithm>
#include <map>

#include "app/util/errors.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

namespace {

// "a/b/run.json" -> "run"
std::string file_stem(const std::string& path) {
  const size_t slash = path.find_last_of("/\\");
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

ReportSource make_source(const ReportHeader& h) {
  ReportSource s;
  s.header = h;
  s.label = file_stem(h.path);
  s.tool = h.tool_name;
  if (!h.tool_version.empty()) s.tool += (s.tool.empty() ? "" : " ") + h.tool_version;
  if (!h.git_revision.empty()) s.tool += " (" + h.git_revision + ")";
  return s;
}

// Labels are file names; two inputs of one name (run/a.json, old/a.json) get "a #2".
void make_labels_unique(std::vector<ReportSource>& sources) {
  std::map<std::string, int> seen;
  for (auto& s : sources) {
    const int n = ++seen[s.label];
    if (n > 1) s.label += " #" + std::to_string(n);
  }
}

void check_devices(const std::vector<ReportSource>& sources, bool allow_mismatch,
                   std::vector<std::string>& warnings) {
  const ReportHeader* first = nullptr;
  for (const auto& source : sources) {
    const ReportHeader& s = source.header;
    if (s.device_name.empty()) continue;
    if (!first) {
      first = &s;
      continue;
    }
    if (s.device_name == first->device_name) continue;
    const std::string what = "the reports come from different GPU models: " + shown(first->path) +
                             " from \"" + shown(first->device_name) + "\", " + shown(s.path) +
                             " from \"" + shown(s.device_name) + "\"";
    if (!allow_mismatch)
      throw UsageError(what +
                       "; their times are not comparable (pass --allow-mismatch to merge "
                       "them anyway)");
    warnings.push_back(what);
  }
}

std::optional<double> ratio(const ReportKernel* other, const ReportKernel& kernel) {
  if (!other || !other->timing || !kernel.timing) return std::nullopt;
  return other->timing->median_ms / kernel.timing->median_ms;
}

void derive_speedups(ReportProblem& problem) {
  const ReportKernel* baseline =
      problem.baseline_id.empty() ? nullptr : find_report_kernel(problem, problem.baseline_id);
  const ReportKernel* eager = find_report_kernel(problem, kTorchEagerId);
  const ReportKernel* compiled = find_report_kernel(problem, kTorchCompileId);
  for (auto& k : problem.kernels) {
    k.vs_baseline = ratio(baseline, k);
    k.vs_torch_eager = ratio(eager, k);
    k.vs_torch_compile = ratio(compiled, k);
  }
}

// Bandwidth and floor the writer left out but the report has what it takes to compute. Every
// kernel gets its problem's floor, timed or not: the summary shows the default kernel's.
void fill_bandwidth(ReportKernel& k, std::optional<int64_t> min_bytes, bool l2_evicted,
                    const ReportSource& source) {
  const std::optional<double> copy = copy_gb_per_s_of(source.header, k);  // of its own GPU
  if (!k.floor)
    k.floor = problem_floor(min_bytes, copy, latency_floor_of(source.header, k), l2_evicted);
  if (!k.timing) return;
  if (!k.gb_per_s && min_bytes)
    k.gb_per_s = static_cast<double>(*min_bytes) / (k.timing->median_ms * 1e-3) / 1e9;
  if (!k.percent_of_copy && k.gb_per_s && copy) k.percent_of_copy = 100.0 * *k.gb_per_s / *copy;
  if (k.percent_of_copy && *k.percent_of_copy > 100.0) k.suspicious = true;
  // A report with % of copy but no copy bandwidth (a Python side's): its copy floor.
  if (!k.floor && k.percent_of_copy)
    k.floor = ProblemFloor{*k.percent_of_copy / 100.0 * k.timing->median_ms, FloorBound::copy};
  if (!k.percent_of_floor && k.floor && k.timing->median_ms > 0.0)
    k.percent_of_floor = percent_of_floor(*k.floor, k.timing->median_ms);
}

}  // namespace

const ReportKernel* find_report_kernel(const ReportProblem& problem, const std::string& id) {
  for (const auto& k : problem.kernels)
    if (k.id == id) return &k;
  return nullptr;
}

ReportModel merge_reports(const std::vector<LoadedReport>& reports, bool allow_mismatch) {
  ReportModel model;
  for (const auto& r : reports) model.sources.push_back(make_source(r.header));
  make_labels_unique(model.sources);
  check_devices(model.sources, allow_mismatch, model.warnings);

  std::map<std::string, size_t> problem_index;
  std::vector<nlohmann::json> identities;  // of the first report that had each problem
  std::vector<size_t> identity_source;
  for (size_t s = 0; s < reports.size(); ++s) {
    const LoadedReport& report = reports[s];
    for (const LoadedProblem& incoming : report.problems) {
      auto [it, inserted] = problem_index.emplace(incoming.id, model.problems.size());
      if (inserted) {
        ReportProblem fresh;
        fresh.id = incoming.id;
        fresh.op = incoming.op;
        fresh.shape = incoming.shape;
        fresh.sweep_family = incoming.sweep_family;
        fresh.sweep_point = incoming.sweep_point;
        fresh.l2_evicted = incoming.l2_evicted;
        fresh.identity = incoming.identity;
        model.problems.push_back(std::move(fresh));
        identities.push_back(incoming.identity);
        identity_source.push_back(s);
      } else if (const std::string differs =
                     identity_difference(identities[it->second], incoming.identity,
                                         shown(reports[identity_source[it->second]].header.path),
                                         shown(report.header.path));
                 !differs.empty()) {
        const std::string what = "problem " + shown(incoming.id) + " is not the same problem in " +
                                 shown(reports[identity_source[it->second]].header.path) + " and " +
                                 shown(report.header.path) + " (" + differs + ")";
        if (!allow_mismatch)
          throw UsageError(what + "; pass --allow-mismatch to merge them anyway");
        model.warnings.push_back(what);
      }
      ReportProblem& merged = model.problems[it->second];
      merged.sources.push_back(s);
      if (merged.baseline_id.empty())
        for (const auto& k : incoming.kernels)
          if (k.is_baseline) {
            merged.baseline_id = k.id;
            break;
          }
      if (merged.description.empty()) merged.description = incoming.description;
      if (!merged.min_bytes) merged.min_bytes = incoming.min_bytes;
      for (const auto& kernel : incoming.kernels) {
        if (const ReportKernel* other = find_report_kernel(merged, kernel.id))
          model.warnings.push_back("problem " + merged.id + ": kernel " + kernel.id +
                                   " appears in " + model.sources[other->source].label + " and " +
                                   model.sources[s].label + "; speedups over it use the first");
        ReportKernel shown;
        static_cast<LoadedKernel&>(shown) = kernel;
        shown.source = s;
        merged.kernels.push_back(std::move(shown));
        fill_bandwidth(merged.kernels.back(), merged.min_bytes, incoming.l2_evicted,
                       model.sources[s]);
      }
    }
  }
  for (auto& p : model.problems) {
    derive_speedups(p);
    model.has_torch_eager = model.has_torch_eager || find_report_kernel(p, kTorchEagerId);
    model.has_torch_compile = model.has_torch_compile || find_report_kernel(p, kTorchCompileId);
  }
  return model;
}

}  // namespace normbench
