// `normbench merge`: the reports of the shards of one run (--shard 1/N ... N/N) made into the
// report the unsharded run would have written, which compare and report read like any other.
//
// Refused (UsageError, exit 2, naming the files; nothing is written): a report that is not a
// shard's; different tools (name, version, git revision), configs (hash), settings that change
// results (trials and seed overrides, timing, allow_faster_than_copy), shard counts or planned
// work; a GPU model other than the first shard's (on any of its GPUs) unless allow_mismatch;
// a shard given twice or missing; a (problem, kernel) pair in a report whose shard the plan
// did not give it (an overlap), or one the plan gives a shard and its report lacks (a gap).
//
// The merged report: shard 1's header (config, device, copy_bandwidth, latency_floor, settings),
// the merge's own created_at and command line, every shard's GPUs in devices[] and each kernel
// with the shard it ran in (both tagged "shard"), problems and kernels in plan order, speedups
// over the baseline recomputed across shards (the baseline may have run in another shard),
// summary and exit code recomputed, aborted naming the shards that were, and "merged" {shards,
// work, from}.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/results/report_reader.hpp"

namespace normbench {

struct ShardReport {
  std::string path;
  nlohmann::json document;  // as written: the merged report keeps every field
  LoadedReport loaded;      // as the one reader reads it (and checks it)
};

// Reads and checks one report (UsageError naming the file when it is unreadable or malformed).
ShardReport read_shard_report(const std::string& path);

struct MergedReport {
  nlohmann::json report;
  std::vector<std::string> warnings;  // mismatches let through by allow_mismatch
};

MergedReport merge_shard_reports(const std::vector<ShardReport>& shards, bool allow_mismatch,
                                 const std::vector<std::string>& command_line,
                                 const std::string& created_at);

}  // namespace normbench
