// Every device operation a launch call enqueued, accounted for. The device worker traces the
// device (CUPTI's activity records: app/worker/activity_trace.hpp) and hands the records here as
// plain data; these rules decide which operations belong to which launch and whether each ran
// inside that launch's timed region:
//   - a traced launch is three marked API calls in the worker's thread: a start event record on
//     the given stream, the kernel's launch call, an end event record on the given stream;
//   - an operation of the launch call, or of no call the harness made (another host thread, a
//     driver call CUPTI did not attribute), belongs to the kernel;
//   - it ran inside the timed region if it is on the given stream between the start and end
//     records, or on a stream that waited for the given stream after the start record (a fork)
//     and that the given stream waited for before the end record (a join), through events.
// The README's threat model says what this defends against.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace normbench {

enum class OperationKind { kernel, memcpy, memset };

// A kernel, copy or memset that ran on the device. Ids are CUPTI's: `correlation` names the API
// call that enqueued it (ids grow in the order calls are made), `stream` the stream it ran on.
struct DeviceOperation {
  OperationKind kind = OperationKind::kernel;
  std::string name;  // a kernel's symbol (mangled), a copy's direction ("DtoD"), else empty
  uint32_t stream = 0;
  uint32_t correlation = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t bytes = 0;  // copies and memsets
};

// cudaEventRecord on `stream`; `sync_id` names this record for the waits on it.
struct EventRecord {
  uint32_t correlation = 0;
  uint32_t stream = 0;
  uint64_t sync_id = 0;
};

// cudaStreamWaitEvent: `stream` waits for the event record `sync_id`.
struct StreamWait {
  uint32_t correlation = 0;
  uint32_t stream = 0;
  uint64_t sync_id = 0;
};

// The records of one stretch of the worker's work, between two flushes of the trace.
struct ActivityLog {
  std::vector<DeviceOperation> operations;
  std::vector<EventRecord> event_records;
  std::vector<StreamWait> stream_waits;
  // The harness's marks (below), by the correlation id of the API call made under them.
  std::unordered_map<uint32_t, uint64_t> marks;
  uint64_t dropped_records = 0;  // records the tracer lost: nothing can then be concluded
};

// What an API call of the worker's thread was made for. The harness marks every call it makes
// (harness); a traced launch's three calls carry their launch's serial number.
enum class MarkRole : uint64_t { harness = 0, start = 1, launch = 2, end = 3 };
inline uint64_t make_mark(uint64_t serial, MarkRole role) {
  return serial << 2 | static_cast<uint64_t>(role);
}
inline MarkRole mark_role(uint64_t mark) {
  return static_cast<MarkRole>(mark & 3);
}
inline uint64_t mark_serial(uint64_t mark) {
  return mark >> 2;
}

// CUPTI's ids of the streams that reasons name.
struct TracedStreams {
  uint32_t given = 0;       // the stream the kernel was given
  uint32_t legacy = 0;      // the legacy default stream (stream 0)
  uint32_t per_thread = 0;  // the worker thread's per-thread default stream
};

// One traced launch: the operations that belong to it and what they took.
struct LaunchAccount {
  uint64_t serial = 0;
  std::vector<DeviceOperation> operations;  // the kernel's, in the order they were enqueued
  double busy_us = 0.0;  // device time covered by at least one of them (overlaps once)
};

struct Accounting {
  std::vector<LaunchAccount> launches;  // every traced launch of the log, by serial
  // Why the launches' operations were not all inside their timed regions, naming the first
  // operation outside ("ran 1 kernel on another stream: spin, 1.1 us (...)").
  std::optional<std::string> escape;
  // Operations of no launch enqueued before the log's first launch, when the launch before
  // that was another kernel's: not charged to this one ("1 kernel: spin, 1.1 us").
  std::optional<std::string> strays;
};

// Accounts for every traced launch in `log`. Operations of no launch (another thread's) count
// against the launch whose stretch of calls they fall in, or the first launch of the log; those
// before the first launch only if `same_kernel_before` (the last launch before the log was
// this kernel's too), else they are strays.
Accounting account_launches(const ActivityLog& log, const TracedStreams& streams,
                            bool same_kernel_before = true);

// One of a launch's operations as reports show it: kind, display name, the stream it ran on
// ("given", "other", "legacy default", "per-thread default") and its device time.
struct OperationSummary {
  OperationKind kind = OperationKind::kernel;
  std::string name;
  std::string stream;
  double duration_us = 0.0;
  // A copy, a memset, or a kernel of PyTorch's own library (ATen, c10): what a submission that
  // fell back to PyTorch runs.
  bool pytorch_library = false;
};
std::vector<OperationSummary> summarize_operations(const LaunchAccount& launch,
                                                   const TracedStreams& streams);
OperationKind operation_kind_from(const std::string& text);  // "kernel", "memcpy", "memset"

// What the report says of a Python submission all of whose operations are PyTorch's library's.
inline constexpr const char* kOnlyPyTorchLabel =
    "only PyTorch's own kernels ran: none of the submission's";
bool only_pytorch_library(const std::vector<OperationSummary>& operations);

// A name a reader wants: a kernel's demangled name without namespaces and parameters (its
// template arguments too when they are long), "memcpy DtoD 4.1 MB", "memset 4.1 MB".
std::string operation_display_name(const DeviceOperation& op);
// "kernel", "memcpy", "memset".
const char* to_string(OperationKind kind);

}  // namespace normbench
