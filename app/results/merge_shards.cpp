#include "app/results/merge_shards.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "app/util/errors.hpp"
#include "app/util/json_parse.hpp"
#include "app/util/shown_text.hpp"
#include "app/util/text_file.hpp"

namespace normbench {

namespace {

using json = nlohmann::json;
using Pair = std::pair<std::string, std::string>;  // (problem id, kernel id)

// The settings that change what a run finds; the others (threads, devices, tensor dumps) may
// differ between shards.
const char* const kResultSettings[] = {"trials_override", "seed_override", "timing",
                                       "allow_faster_than_copy"};

std::string pair_text(const Pair& p) {
  return shown(p.first) + " / " + shown(p.second);
}

std::string shard_text(const LoadedShard& s) {
  return std::to_string(s.index) + "/" + std::to_string(s.count);
}

std::string tool_text(const ReportHeader& h) {
  return shown(h.tool_name) + " " + shown(h.tool_version) + " (" + shown(h.git_revision) + ")";
}

bool same_work(const LoadedShard& a, const LoadedShard& b) {
  if (a.work.size() != b.work.size()) return false;
  for (size_t i = 0; i < a.work.size(); ++i) {
    const LoadedWorkItem &x = a.work[i], &y = b.work[i];
    if (x.problem != y.problem || x.kernel != y.kernel || x.shard != y.shard || x.cost != y.cost)
      return false;
  }
  return true;
}

// Every reason to refuse, so that one message names them all; long lists of pairs are cut.
class Refusals {
 public:
  void add(std::string what) { items_.push_back(std::move(what)); }
  // One item per pair, at most kShown of them, then how many more.
  void add_pairs(const std::string& before, const std::vector<Pair>& pairs,
                 const std::string& after) {
    constexpr size_t kShown = 5;
    if (pairs.empty()) return;
    std::string list;
    for (size_t i = 0; i < pairs.size() && i < kShown; ++i)
      list += (i ? ", " : "") + pair_text(pairs[i]);
    if (pairs.size() > kShown) list += " and " + std::to_string(pairs.size() - kShown) + " more";
    add(before + list + after);
  }
  void throw_if_any() const {
    if (items_.empty()) return;
    std::string message = "refusing to merge: ";
    for (size_t i = 0; i < items_.size(); ++i) message += (i ? "; " : "") + items_[i];
    throw UsageError(message + " (nothing was written)");
  }

 private:
  std::vector<std::string> items_;
};

// Every GPU model a report ran on: its device and each of its devices[]; a report of no device
// (a null device: its run found no GPU) has the empty name, its own model, as compare counts it.
std::set<std::string> models_of(const ReportHeader& h) {
  std::set<std::string> models;
  if (!h.device_name.empty()) models.insert(h.device_name);
  for (const LoadedDevice& d : h.devices) models.insert(d.name);
  if (models.empty()) models.insert("");
  return models;
}

std::string model_text(const std::string& name) {
  return name.empty() ? "no device" : "\"" + shown(name) + "\"";
}

void check_same_run(const std::vector<ShardReport>& shards, bool allow_mismatch, Refusals& refusals,
                    std::vector<std::string>& warnings) {
  const ShardReport& first = shards.front();
  const ReportHeader& a = first.loaded.header;
  for (const ShardReport& s : shards) {
    const ReportHeader& b = s.loaded.header;
    if (&s != &first) {
      if (a.tool_name != b.tool_name || a.tool_version != b.tool_version ||
          a.git_revision != b.git_revision)
        refusals.add("different tools: " + shown(a.path) + " was written by " + tool_text(a) +
                     ", " + shown(b.path) + " by " + tool_text(b) +
                     " (the shards of one run come from one build)");
      if (a.config_hash != b.config_hash)
        refusals.add("different configs: " + shown(a.path) + " has config \"" +
                     shown(a.config_name) + "\" hash " + shown(a.config_hash) + ", " +
                     shown(b.path) + " has \"" + shown(b.config_name) + "\" hash " +
                     shown(b.config_hash));
      const json none = nullptr;
      const json& sa = first.document.contains("settings") ? first.document["settings"] : none;
      const json& sb = s.document.contains("settings") ? s.document["settings"] : none;
      for (const char* key : kResultSettings) {
        const json va = sa.is_object() ? sa.value(key, json(nullptr)) : json(nullptr);
        const json vb = sb.is_object() ? sb.value(key, json(nullptr)) : json(nullptr);
        if (va != vb)
          refusals.add(std::string("different settings: ") + shown(a.path) + " has settings." +
                       key + " " + shown(va.dump()) + ", " + shown(b.path) + " has " +
                       shown(vb.dump()));
      }
      const LoadedShard &x = *first.loaded.shard, &y = *s.loaded.shard;
      if (x.count != y.count)
        refusals.add("different shard counts: " + shown(a.path) + " is shard " + shard_text(x) +
                     ", " + shown(b.path) + " is shard " + shard_text(y));
      else if (!same_work(x, y))
        refusals.add("different planned work: " + shown(a.path) + " and " + shown(b.path) +
                     " plan different (problem, kernel) pairs, shards or costs (other "
                     "--problem, --kernel or --trials, or other kernels registered)");
    }
    for (const std::string& model : models_of(b)) {
      if (model == a.device_name) continue;
      const std::string what = "different GPU models: " + shown(a.path) + " ran on " +
                               model_text(a.device_name) + ", " + shown(b.path) + " on " +
                               model_text(model);
      if (allow_mismatch)
        warnings.push_back(what + " (merged anyway: --allow-mismatch)");
      else
        refusals.add(what + " (--allow-mismatch merges them anyway)");
    }
  }
}

void check_coverage(const std::vector<ShardReport>& shards, Refusals& refusals) {
  const LoadedShard& plan = *shards.front().loaded.shard;
  std::map<int, const ShardReport*> by_index;
  for (const ShardReport& s : shards) {
    const auto [it, fresh] = by_index.emplace(s.loaded.shard->index, &s);
    if (!fresh)
      refusals.add("shard " + shard_text(*s.loaded.shard) +
                   " is given twice: " + shown(it->second->path) + " and " + shown(s.path));
  }
  // The reader bounds the count (kMaxShards); the message names the first few missing.
  constexpr size_t kShown = 5;
  std::string missing;
  size_t n_missing = 0;
  for (int k = 1; k <= plan.count; ++k)
    if (!by_index.count(k) && n_missing++ < kShown)
      missing +=
          (missing.empty() ? "" : ", ") + std::to_string(k) + "/" + std::to_string(plan.count);
  if (n_missing > kShown) missing += " and " + std::to_string(n_missing - kShown) + " more";
  if (n_missing == 1)
    refusals.add("shard " + missing + " is missing: no report of it was given");
  else if (n_missing > 1)
    refusals.add("shards " + missing + " are missing: no report of them was given");

  std::map<Pair, int> planned;
  for (const LoadedWorkItem& w : plan.work) planned[{w.problem, w.kernel}] = w.shard;
  std::map<std::string, const ShardReport*> problem_source;
  for (const ShardReport& s : shards) {
    const int index = s.loaded.shard->index;
    const std::string who = shown(s.path) + " (shard " + shard_text(*s.loaded.shard) + ")";
    std::set<Pair> ran;
    std::vector<Pair> unplanned, overlaps, gaps;
    for (const LoadedProblem& p : s.loaded.problems) {
      const auto [it, fresh] = problem_source.emplace(p.id, &s);
      if (!fresh) {
        const LoadedProblem* other = nullptr;
        for (const LoadedProblem& q : it->second->loaded.problems)
          if (q.id == p.id) other = &q;
        const std::string differs =
            other ? identity_difference(other->identity, p.identity, shown(it->second->path),
                                        shown(s.path))
                  : "";
        if (!differs.empty())
          refusals.add("problem " + shown(p.id) + " is not the same problem in " +
                       shown(it->second->path) + " and " + shown(s.path) + " (" + differs + ")");
      }
      for (const LoadedKernel& k : p.kernels) {
        const Pair pair{p.id, k.id};
        ran.insert(pair);
        const auto at = planned.find(pair);
        if (at == planned.end())
          unplanned.push_back(pair);
        else if (at->second != index)
          overlaps.push_back(pair);
      }
    }
    for (const LoadedWorkItem& w : plan.work)
      if (w.shard == index && !ran.count({w.problem, w.kernel}))
        gaps.push_back({w.problem, w.kernel});
    refusals.add_pairs(who + " ran ", unplanned, ", which the plan does not have");
    refusals.add_pairs(who + " ran ", overlaps,
                       ", which the plan gives to another shard: the shards overlap");
    refusals.add_pairs(who + " lacks ", gaps, ", which the plan gives to it: a gap");
  }
}

const json* find_by_id(const json& array, const std::string& id) {
  for (const json& item : array)
    if (item.at("id") == id) return &item;
  return nullptr;
}

// devices[] of one shard, each tagged with the shard; a report without devices[] lists its
// device with its copy bandwidth and latency floor.
void append_devices(const json& doc, int shard, json& out) {
  json devices = doc.value("devices", json(nullptr));
  if (!devices.is_array()) {
    devices = json::array();
    if (doc.at("device").is_object()) {
      json d = doc.at("device");
      d["copy_bandwidth"] = doc.value("copy_bandwidth", json(nullptr));
      if (doc.contains("latency_floor")) d["latency_floor"] = doc.at("latency_floor");
      devices.push_back(std::move(d));
    }
  }
  for (json& d : devices) {
    d["shard"] = shard;
    out.push_back(std::move(d));
  }
}

// Speedups over the problem's baseline, which may have run in another shard: the ratio of the
// medians, as the writer computes it within one run. `loaded` holds the problem's kernels as
// the reader checked them, in the order of its "kernels": only a kernel that passed has a time.
void recompute_speedups(json& problem, const std::vector<const LoadedKernel*>& loaded) {
  const LoadedKernel* baseline = nullptr;
  for (const LoadedKernel* k : loaded)
    if (k->is_baseline) baseline = k;
  if (!baseline) return;
  json& kernels = problem.at("kernels");
  for (size_t i = 0; i < loaded.size(); ++i) {
    json speedup = {{"baseline", baseline->id}, {"vs_baseline", nullptr}};
    if (loaded[i]->timing && baseline->timing)
      speedup["vs_baseline"] = baseline->timing->median_ms / loaded[i]->timing->median_ms;
    kernels[i]["speedup"] = speedup;
  }
}

json summary_of(const std::vector<std::vector<const LoadedKernel*>>& problems) {
  json counts = {{"kernels", 0}};
  for (KernelStatus s : kAllKernelStatuses) counts[to_string(s)] = 0;
  for (const auto& kernels : problems)
    for (const LoadedKernel* k : kernels) {
      counts["kernels"] = counts["kernels"].get<int>() + 1;
      const char* status = to_string(k->status);
      counts[status] = counts[status].get<int>() + 1;
    }
  return counts;
}

const LoadedProblem& loaded_problem(const LoadedReport& report, const std::string& id) {
  for (const LoadedProblem& p : report.problems)
    if (p.id == id) return p;
  throw std::logic_error("merge: problem " + id + " is planned but absent");  // coverage checked
}

json assemble(std::vector<const ShardReport*> in_order,
              const std::vector<std::string>& command_line, const std::string& created_at) {
  const ShardReport& first = *in_order.front();
  const LoadedShard& plan = *first.loaded.shard;
  json out = first.document;
  out["created_at"] = created_at;
  out["command_line"] = command_line;
  out["shard"] = nullptr;

  json devices = json::array(), from = json::array();
  std::string aborted;
  for (const ShardReport* s : in_order) {
    const int k = s->loaded.shard->index;
    append_devices(s->document, k, devices);
    const json shard_aborted = s->document.value("aborted", json(nullptr));
    if (shard_aborted.is_string())
      aborted += (aborted.empty() ? "" : "; ") + std::string("shard ") +
                 shard_text(*s->loaded.shard) + ": " + shard_aborted.get<std::string>();
    from.push_back({{"path", s->path},
                    {"shard", k},
                    {"created_at", s->document.value("created_at", json(nullptr))},
                    {"command_line", s->document.value("command_line", json(nullptr))},
                    {"aborted", shard_aborted},
                    {"exit_code", s->document.value("exit_code", json(nullptr))}});
  }
  out["devices"] = devices;

  // Plan order: problems as their first pair comes, kernels as their pairs come. What the
  // merge computes it takes from the checked reports (`loaded`), what it copies from the
  // documents.
  json problems = json::array();
  std::vector<std::vector<const LoadedKernel*>> loaded;  // per merged problem, per kernel
  std::map<std::string, size_t> problem_at;
  for (const LoadedWorkItem& w : plan.work) {
    const ShardReport& shard = *in_order[static_cast<size_t>(w.shard - 1)];
    const json& source = *find_by_id(shard.document.at("problems"), w.problem);
    const LoadedProblem& checked = loaded_problem(shard.loaded, w.problem);
    auto [it, fresh] = problem_at.emplace(w.problem, problems.size());
    if (fresh) {
      json p = source;
      p["kernels"] = json::array();
      problems.push_back(std::move(p));
      loaded.emplace_back();
    } else if (!checked.skipped) {
      problems[it->second]["status"] = "ran";  // skipped only where every shard skipped it
      problems[it->second]["reason"] = nullptr;
    }
    json kernel = *find_by_id(source.at("kernels"), w.kernel);
    kernel["shard"] = w.shard;
    problems[it->second]["kernels"].push_back(std::move(kernel));
    loaded[it->second].push_back(find_kernel_in(checked, w.kernel));
  }
  bool failed = false;
  for (size_t i = 0; i < problems.size(); ++i) {
    recompute_speedups(problems[i], loaded[i]);
    for (const LoadedKernel* k : loaded[i]) failed = failed || is_failure(k->status);
  }
  out["problems"] = problems;
  out["summary"] = summary_of(loaded);
  out["aborted"] = aborted.empty() ? json(nullptr) : json(aborted);
  out["exit_code"] = static_cast<int>(!aborted.empty() ? kExitRuntime
                                      : failed         ? kExitFailed
                                                       : kExitOk);
  out["merged"] = {
      {"shards", plan.count}, {"work", first.document.at("shard").at("work")}, {"from", from}};
  return out;
}

}  // namespace

ShardReport read_shard_report(const std::string& path) {
  ShardReport r;
  r.path = path;
  r.document = parse_json_text(read_text_file(path, "report", kMaxReportBytes), path);
  r.loaded = read_report_json(r.document, path);
  return r;
}

MergedReport merge_shard_reports(const std::vector<ShardReport>& shards, bool allow_mismatch,
                                 const std::vector<std::string>& command_line,
                                 const std::string& created_at) {
  if (shards.empty()) throw UsageError("merge: no reports given");
  Refusals refusals;
  for (const ShardReport& s : shards)
    if (!s.loaded.shard)
      refusals.add(shown(s.path) +
                   " is not the report of a shard (it has no \"shard\"; reports to merge "
                   "come from normbench run --shard K/N)");
  refusals.throw_if_any();  // the checks below need every report's shard

  MergedReport merged;
  check_same_run(shards, allow_mismatch, refusals, merged.warnings);
  refusals.throw_if_any();  // coverage is only meaningful within one plan
  check_coverage(shards, refusals);
  refusals.throw_if_any();

  std::vector<const ShardReport*> in_order;
  for (const ShardReport& s : shards) in_order.push_back(&s);
  std::sort(in_order.begin(), in_order.end(), [](const ShardReport* a, const ShardReport* b) {
    return a->loaded.shard->index < b->loaded.shard->index;
  });
  merged.report = assemble(in_order, command_line, created_at);
  return merged;
}

}  // namespace normbench
