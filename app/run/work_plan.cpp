#include "app/run/work_plan.hpp"

#include <algorithm>
#include <cstdint>
#include <set>

#include "app/results/report_schema.hpp"
#include "app/util/errors.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

namespace {
bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// A list of ids for a message: whole for the built-in kernels (under 1,000 characters), cut
// where a config or plugins bring thousands.
std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (out.size() > 2000) return out + ", ... (" + std::to_string(items.size()) + " in all)";
    out += (i ? ", " : "") + shown(items[i]);
  }
  return out;
}

// Python candidates exist only when their option asks for them: `--kernel torch.eager` alone
// names no kernel, and the list of those that exist would not say why.
std::string candidate_hint(const std::string& id) {
  const auto starts = [&](const char* prefix) { return id.rfind(prefix, 0) == 0; };
  if (starts("torch."))
    return " (torch.eager and torch.compile are candidates of `normbench run --torch`)";
  if (starts("python."))
    return " (python.<module>.<function> is a candidate of `normbench run --python "
           "module:function`)";
  if (starts("kernelbench."))
    return " (kernelbench.<file stem> is a candidate of `normbench run --kernelbench FILE.py`)";
  return "";
}

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kFixedMiB = 64;  // launches and timing, whatever the problem's size

// An exbibyte moved (2^40 MiB), more than any run can: costs beyond it count alike, so that
// the largest problems a config allows (2^61 with a million trials) still split evenly and a
// million items sum within 64 bits (saturating_add past that).
constexpr uint64_t kMaxItemCost = uint64_t{1} << 40;

uint64_t mib_per_trial(const ProblemConfig& problem) {
  const auto bytes = static_cast<uint64_t>(std::max<int64_t>(0, problem.shape.min_bytes()));
  return (bytes + kMiB - 1) / kMiB + kFixedMiB;
}

// A decimal integer in [1, max], or nullopt: no sign, no spaces, no leading "+".
std::optional<int> small_positive(const std::string& text, int max) {
  if (text.empty() || text.size() > 6) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value < 1 || value > max) return std::nullopt;
  return value;
}
// Filters that leave no (problem, kernel) pair would make a run that verifies nothing exit 0:
// "--kernel rms_norm.naive" on a config without an rms_norm problem is a mistake.
void check_selects_work(const std::vector<PlannedProblem>& plan, const RunConfig& config,
                        const RunSettings& settings) {
  for (const PlannedProblem& p : plan)
    if (!p.kernels.empty()) return;
  std::string filters;
  for (const auto& id : settings.problem_filter) filters += " --problem " + shown(id);
  for (const auto& id : settings.kernel_filter) filters += " --kernel " + shown(id);
  std::vector<std::string> ops;
  for (const PlannedProblem& p : plan) {
    const std::string op(op_name(p.problem->shape.op));
    if (!contains(ops, op)) ops.push_back(op);
  }
  throw UsageError(filters.substr(1) + ": selects no (problem, kernel) pair of " +
                   shown(config.source) + "; allowed: kernels of the selected problems' ops (" +
                   join(ops) + ")");
}
}  // namespace

std::vector<PlannedProblem> plan_run(const RunConfig& config, const RunSettings& settings,
                                     const std::vector<KernelVariant>& candidates) {
  std::vector<std::string> problem_ids, kernel_ids;
  for (const auto& p : config.problems) problem_ids.push_back(p.id);
  for (const auto& k : registered_kernels()) kernel_ids.push_back(k.id);
  for (const auto& k : candidates)
    if (!contains(kernel_ids, k.id)) kernel_ids.push_back(k.id);
  for (const auto& id : settings.problem_filter)
    if (!contains(problem_ids, id))
      throw UsageError("--problem " + shown(id) + ": no such problem in " + shown(config.source) +
                       "; allowed: " + join(problem_ids));
  for (const auto& id : settings.kernel_filter)
    if (!contains(kernel_ids, id))
      throw UsageError("--kernel " + shown(id) + ": no such kernel" + candidate_hint(id) +
                       "; allowed: " + join(kernel_ids));

  std::vector<PlannedProblem> plan;
  for (const auto& problem : config.problems) {
    if (!settings.problem_filter.empty() && !contains(settings.problem_filter, problem.id))
      continue;
    PlannedProblem planned{&problem, {}};
    for (const auto* kernels : {&registered_kernels(), &candidates})
      for (const auto& kernel : *kernels)
        if (kernel.op == problem.shape.op &&
            (settings.kernel_filter.empty() || contains(settings.kernel_filter, kernel.id)))
          planned.kernels.push_back(&kernel);
    plan.push_back(std::move(planned));
  }
  check_selects_work(plan, config, settings);
  // A problem that --kernel leaves without kernels is not set up at all (its inputs and
  // float64 references can take gigabytes), as a shard drops those it was given none of.
  if (!settings.kernel_filter.empty())
    plan.erase(std::remove_if(plan.begin(), plan.end(),
                              [](const PlannedProblem& p) { return p.kernels.empty(); }),
               plan.end());
  return plan;
}

ShardSpec parse_shard(const std::string& text) {
  const size_t slash = text.find('/');
  const auto fail = [&](const std::string& why) -> ShardSpec {
    throw UsageError("--shard " + shown(text) + ": " + why + "; allowed: K/N with 1 <= K <= N <= " +
                     std::to_string(kMaxShards) + ", e.g. 1/2 and 2/2");
  };
  if (slash == std::string::npos) return fail("expected K/N");
  const auto index = small_positive(text.substr(0, slash), kMaxShards);
  const auto count = small_positive(text.substr(slash + 1), kMaxShards);
  if (!index || !count)
    return fail("K and N must be integers from 1 to " + std::to_string(kMaxShards));
  if (*index > *count) return fail("K is larger than N");
  return {*index, *count};
}

uint64_t kernel_cost(const ProblemConfig& problem, const KernelVariant& kernel, int trials) {
  return std::min(kMaxItemCost, static_cast<uint64_t>(std::max(1, trials)) *
                                    mib_per_trial(problem) * (kernel.is_baseline ? 2 : 1));
}

uint64_t setup_cost(const ProblemConfig& problem, int trials) {
  return std::min(kMaxItemCost,
                  static_cast<uint64_t>(std::max(1, trials)) * mib_per_trial(problem));
}

std::vector<int> split_balanced(const std::vector<CostedItem>& items,
                                const std::vector<uint64_t>& group_setup, int shards) {
  const auto count = static_cast<uint64_t>(std::max(1, shards));
  // The units: a large group's items one by one, any other group whole.
  std::vector<uint64_t> group_total(group_setup);
  uint64_t total = 0;
  for (const CostedItem& item : items)
    group_total.at(item.group) = saturating_add(group_total.at(item.group), item.cost);
  for (uint64_t t : group_total) total = saturating_add(total, t);
  struct Unit {
    size_t group = 0;
    uint64_t cost = 0;
    std::vector<size_t> items;
  };
  std::vector<Unit> units;
  std::vector<size_t> whole(group_setup.size(), SIZE_MAX);  // the unit of a group kept whole
  for (size_t i = 0; i < items.size(); ++i) {
    const size_t g = items[i].group;
    if (group_total[g] > total / (2 * count)) {
      units.push_back({g, items[i].cost, {i}});
      continue;
    }
    if (whole[g] == SIZE_MAX) {
      whole[g] = units.size();
      units.push_back({g, 0, {}});
    }
    units[whole[g]].cost = saturating_add(units[whole[g]].cost, items[i].cost);
    units[whole[g]].items.push_back(i);
  }
  std::stable_sort(units.begin(), units.end(),
                   [](const Unit& a, const Unit& b) { return a.cost > b.cost; });

  std::vector<uint64_t> load(count, 0);
  std::vector<std::set<size_t>> set_up(count);  // the groups each shard already pays for
  std::vector<int> shard_of_item(items.size(), 1);
  for (const Unit& unit : units) {
    size_t best = 0;
    uint64_t best_load = 0;
    for (size_t s = 0; s < count; ++s) {
      const uint64_t setup = set_up[s].count(unit.group) ? 0 : group_setup[unit.group];
      const uint64_t after = saturating_add(saturating_add(load[s], unit.cost), setup);
      if (s == 0 || after < best_load) {
        best = s;
        best_load = after;
      }
    }
    load[best] = best_load;
    set_up[best].insert(unit.group);
    for (size_t i : unit.items) shard_of_item[i] = static_cast<int>(best) + 1;
  }
  return shard_of_item;
}

std::vector<WorkEntry> plan_work(const std::vector<PlannedProblem>& plan,
                                 std::optional<int> trials_override, int shards) {
  std::vector<WorkEntry> work;
  std::vector<CostedItem> items;
  std::vector<uint64_t> setup;
  for (size_t p = 0; p < plan.size(); ++p) {
    const ProblemConfig& problem = *plan[p].problem;
    const int trials = trials_override.value_or(problem.trials);
    setup.push_back(setup_cost(problem, trials));
    for (const KernelVariant* kernel : plan[p].kernels) {
      const uint64_t cost = kernel_cost(problem, *kernel, trials);
      work.push_back({problem.id, kernel->id, 1, cost});
      items.push_back({p, cost});
    }
  }
  const std::vector<int> shard = split_balanced(items, setup, shards);
  for (size_t i = 0; i < work.size(); ++i) work[i].shard = shard[i];
  return work;
}

std::vector<PlannedProblem> shard_of(const std::vector<PlannedProblem>& plan,
                                     const std::vector<WorkEntry>& work, int index) {
  std::set<std::pair<std::string, std::string>> mine;
  for (const WorkEntry& w : work)
    if (w.shard == index) mine.insert({w.problem, w.kernel});
  std::vector<PlannedProblem> out;
  for (const PlannedProblem& p : plan) {
    PlannedProblem kept{p.problem, {}};
    for (const KernelVariant* k : p.kernels)
      if (mine.count({p.problem->id, k->id})) kept.kernels.push_back(k);
    if (!kept.kernels.empty()) out.push_back(std::move(kept));
  }
  return out;
}

std::vector<uint64_t> shard_loads(const std::vector<PlannedProblem>& plan,
                                  const std::vector<WorkEntry>& work,
                                  std::optional<int> trials_override, int shards) {
  std::vector<uint64_t> load(static_cast<size_t>(std::max(1, shards)), 0);
  std::set<std::pair<int, std::string>> set_up;
  for (const WorkEntry& w : work) {
    const auto s = static_cast<size_t>(w.shard - 1);
    load.at(s) = saturating_add(load.at(s), w.cost);
    if (!set_up.insert({w.shard, w.problem}).second) continue;
    for (const PlannedProblem& p : plan)
      if (p.problem->id == w.problem)
        load[s] = saturating_add(
            load[s], setup_cost(*p.problem, trials_override.value_or(p.problem->trials)));
  }
  return load;
}

uint64_t problem_cost(const PlannedProblem& problem, std::optional<int> trials_override) {
  const int trials = trials_override.value_or(problem.problem->trials);
  uint64_t cost = setup_cost(*problem.problem, trials);
  for (const KernelVariant* k : problem.kernels)
    cost = saturating_add(cost, kernel_cost(*problem.problem, *k, trials));
  return cost;
}

}  // namespace normbench
