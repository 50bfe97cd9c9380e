// What a run will do, decided without a GPU: the problems of a config after the --problem and
// --kernel filters, each with its kernels, and the split of that work into --shard K/N.
//
// The unit of sharding is one (problem, kernel) pair. Shards usually run on different machines
// (a Slurm array, a CI matrix), so the split must be a pure function of the config, the filters
// and --trials, and the same on every machine: integer costs, a fixed order, ties by index.
// Each shard that gets any kernel of a problem makes that problem's inputs and references
// itself, so a problem's setup is paid by every shard that touches it: a problem is split over
// shards only when it is large (more than half a shard's fair share of the cost); smaller ones
// go whole to one shard.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/results/run_result.hpp"
#include "kernels/registry.hpp"

namespace normbench {

struct PlannedProblem {
  const ProblemConfig* problem;
  std::vector<const KernelVariant*> kernels;  // registered for its op, after --kernel filters
};

// Applies --problem and --kernel filters; throws UsageError naming an unknown id and the
// allowed ones. Needs no GPU. Each problem gets the registered kernels of its op, then the
// `candidates` of its op (Python candidates: one variant per op, one id for all ops), which
// must outlive the run. A problem --kernel leaves without kernels is left out.
std::vector<PlannedProblem> plan_run(const RunConfig& config, const RunSettings& settings,
                                     const std::vector<KernelVariant>& candidates = {});

// --shard K/N: this run does shard `index` (1-based) of `count`.
struct ShardSpec {
  int index = 1;
  int count = 1;
};

// "K/N" with 1 <= K <= N (decimal integers, N at most 10000); throws UsageError naming the
// value and what is allowed.
ShardSpec parse_shard(const std::string& text);

// Costs reach 2^61 for one item of the largest problem a config allows: their sums saturate
// instead of wrapping (a wrapped load looked like the least loaded).
inline uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// Expected cost, in units of "one MiB moved per trial" (integers, so that every machine splits
// alike). Per trial, a kernel's output is copied back and checked element by element, and the
// problem's inputs are generated, uploaded and referenced once: both scale with the problem's
// bytes; a fixed 64 MiB stands for the launches and timing that every kernel pays even on tiny
// problems. Baselines (the naive kernels) count double: they are the slowest to launch and time.
uint64_t kernel_cost(const ProblemConfig& problem, const KernelVariant& kernel, int trials);
uint64_t setup_cost(const ProblemConfig& problem, int trials);

// The pure split. Item i belongs to group items[i].group (its problem) and costs items[i].cost;
// a shard that gets any item of a group also pays group_setup[group]. A group whose setup and
// items cost more than total / (2 * shards) is split into its items; any other group is one
// unit. Units are taken largest first (setup aside; ties: lower first item first) and each goes
// to the shard whose load after taking it is least (ties: lower shard). Returns each item's
// shard, 1-based. Afterwards no shard's load exceeds another's by more than the largest group's
// setup and items together.
struct CostedItem {
  size_t group = 0;
  uint64_t cost = 0;
};
std::vector<int> split_balanced(const std::vector<CostedItem>& items,
                                const std::vector<uint64_t>& group_setup, int shards);

// Every (problem, kernel) pair of the plan in plan order, with its cost and its shard of
// `shards`. The trials are those the run makes (--trials overrides the config).
std::vector<WorkEntry> plan_work(const std::vector<PlannedProblem>& plan,
                                 std::optional<int> trials_override, int shards);

// The plan restricted to the pairs of `work` given to shard `index`: problems keep their order
// and their kernels' order; problems with no kernel for this shard are left out.
std::vector<PlannedProblem> shard_of(const std::vector<PlannedProblem>& plan,
                                     const std::vector<WorkEntry>& work, int index);

// Each shard's expected load: its pairs' costs and the setup of each problem it touches.
std::vector<uint64_t> shard_loads(const std::vector<PlannedProblem>& plan,
                                  const std::vector<WorkEntry>& work,
                                  std::optional<int> trials_override, int shards);

// The expected cost of running `problem` with its kernels of the plan: setup + kernels.
uint64_t problem_cost(const PlannedProblem& problem, std::optional<int> trials_override);

}  // namespace normbench
