#include "app/check/activity_accounting.hpp"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>

#include "app/util/shown_text.hpp"

namespace normbench {

namespace {

// What each stream has been ordered after: for every stream, the position (count of entries
// enqueued on it) up to which its work precedes this stream's next entry. Event records copy a
// stream's clock; a wait merges the recorded clock into the waiting stream's.
using Clock = std::map<uint32_t, uint64_t>;

void merge_into(Clock& into, const Clock& from) {
  for (const auto& [stream, position] : from) into[stream] = std::max(into[stream], position);
}

uint64_t seen(const Clock& clock, uint32_t stream) {
  const auto it = clock.find(stream);
  return it == clock.end() ? 0 : it->second;
}

// An entry of a stream's queue (an operation or an event record), or a wait, in call order.
struct Entry {
  enum Type { operation, event_record, wait } type;
  size_t index;
  uint32_t correlation;
  uint64_t start_ns;  // orders the operations of one call (a graph launch has several)
};

// Where an operation sits: its position on its stream and how much of the given stream its
// stream had been ordered after when it was enqueued.
struct Place {
  uint64_t position = 0;
  uint64_t given_seen = 0;
};

// A traced launch's timed region: the start and end records on the given stream.
struct Window {
  bool has_start = false, has_end = false;
  uint64_t start_position = 0, end_position = 0;
  uint32_t start_correlation = 0, end_correlation = 0;
  Clock end_clock;  // the given stream's clock at the end record
};

enum class Cause { none, outside_call, not_joined, not_forked, no_markers };

Cause judge(const DeviceOperation& op, const Place& place, const Window& w, uint32_t given) {
  if (!w.has_start || !w.has_end) return Cause::no_markers;
  if (op.stream == given)
    return place.position > w.start_position && place.position < w.end_position
               ? Cause::none
               : Cause::outside_call;
  if (seen(w.end_clock, op.stream) < place.position) return Cause::not_joined;
  if (place.given_seen < w.start_position) return Cause::not_forked;
  return Cause::none;
}

const char* cause_text(Cause cause) {
  switch (cause) {
    case Cause::outside_call:
      return "enqueued outside its launch call: by another thread, or after the call returned";
    case Cause::not_joined:
      return "the given stream did not wait for it before the timed end";
    case Cause::not_forked:
      return "it did not wait for the given stream's timed start, so it could run before it";
    case Cause::no_markers:
      return "the trace lost the launch's start or end record";
    case Cause::none:
      break;
  }
  return "";
}

std::string where(uint32_t stream, const TracedStreams& streams) {
  if (stream == streams.given) return "the given stream";
  if (stream == streams.legacy) return "the legacy default stream";
  if (stream == streams.per_thread) return "the per-thread default stream";
  return "another stream";
}

double duration_us(const DeviceOperation& op) {
  return op.end_ns > op.start_ns ? static_cast<double>(op.end_ns - op.start_ns) / 1e3 : 0.0;
}

double busy_us(std::vector<DeviceOperation> ops) {
  std::sort(ops.begin(), ops.end(), [](const DeviceOperation& a, const DeviceOperation& b) {
    return a.start_ns < b.start_ns;
  });
  uint64_t busy = 0, covered_to = 0;
  for (const DeviceOperation& op : ops) {
    const uint64_t from = std::max(op.start_ns, covered_to);
    if (op.end_ns > from) busy += op.end_ns - from;
    covered_to = std::max(covered_to, op.end_ns);
  }
  return static_cast<double>(busy) / 1e3;
}

struct Escaped {
  const DeviceOperation* op;
  Cause cause;
};

std::string escape_text(const std::vector<Escaped>& escaped, const TracedStreams& streams) {
  const Escaped& first = escaped.front();
  const std::string first_where = where(first.op->stream, streams);
  bool alike = true;
  for (const Escaped& e : escaped)
    alike = alike && e.op->kind == first.op->kind && where(e.op->stream, streams) == first_where &&
            e.cause == first.cause;
  const size_t n = escaped.size();
  const std::string named =
      fmt::format("{}, {:.1f} us", operation_display_name(*first.op), duration_us(*first.op));
  const std::string more = n > 1 ? fmt::format(", and {} more", n - 1) : "";
  if (alike)
    return fmt::format("ran {} {}{} on {}: {}{} ({})", n, to_string(first.op->kind),
                       n == 1 ? "" : "s", first_where, named, more, cause_text(first.cause));
  return fmt::format("ran {} operations outside its timed region, the first a {} on {}: {} ({})", n,
                     to_string(first.op->kind), first_where, named, cause_text(first.cause));
}

}  // namespace

Accounting account_launches(const ActivityLog& log, const TracedStreams& streams,
                            bool same_kernel_before) {
  std::vector<Entry> entries;
  for (size_t i = 0; i < log.operations.size(); ++i)
    entries.push_back(
        {Entry::operation, i, log.operations[i].correlation, log.operations[i].start_ns});
  for (size_t i = 0; i < log.event_records.size(); ++i)
    entries.push_back({Entry::event_record, i, log.event_records[i].correlation, 0});
  for (size_t i = 0; i < log.stream_waits.size(); ++i)
    entries.push_back({Entry::wait, i, log.stream_waits[i].correlation, 0});
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.correlation != b.correlation ? a.correlation < b.correlation : a.start_ns < b.start_ns;
  });

  auto mark_of = [&](uint32_t correlation) -> std::optional<uint64_t> {
    const auto it = log.marks.find(correlation);
    if (it == log.marks.end()) return std::nullopt;
    return it->second;
  };

  std::map<uint32_t, Clock> clocks;
  std::map<uint32_t, uint64_t> positions;
  std::map<uint64_t, Clock> recorded;  // by sync id
  std::vector<Place> places(log.operations.size());
  std::map<uint64_t, Window> windows;  // by launch serial
  for (const Entry& e : entries) {
    if (e.type == Entry::wait) {
      const StreamWait& w = log.stream_waits[e.index];
      if (auto it = recorded.find(w.sync_id); it != recorded.end())
        merge_into(clocks[w.stream], it->second);
      continue;
    }
    const uint32_t stream = e.type == Entry::operation ? log.operations[e.index].stream
                                                       : log.event_records[e.index].stream;
    const uint64_t position = ++positions[stream];
    Clock& clock = clocks[stream];
    clock[stream] = position;
    if (e.type == Entry::operation) {
      places[e.index] = {position, seen(clock, streams.given)};
      continue;
    }
    const EventRecord& record = log.event_records[e.index];
    recorded[record.sync_id] = clock;
    const auto mark = mark_of(record.correlation);
    if (!mark || stream != streams.given) continue;
    Window& w = windows[mark_serial(*mark)];
    if (mark_role(*mark) == MarkRole::start) {
      w.has_start = true;
      w.start_position = position;
      w.start_correlation = record.correlation;
    } else if (mark_role(*mark) == MarkRole::end) {
      w.has_end = true;
      w.end_position = position;
      w.end_correlation = record.correlation;
      w.end_clock = clock;
    }
  }

  // Which launch each of the kernel's operations belongs to; the harness's own are left out.
  std::map<uint64_t, std::vector<size_t>> owned;
  std::vector<size_t> foreign;
  for (size_t i = 0; i < log.operations.size(); ++i) {
    const auto mark = mark_of(log.operations[i].correlation);
    if (!mark) {
      foreign.push_back(i);
    } else if (mark_role(*mark) == MarkRole::launch) {
      windows[mark_serial(*mark)];  // a launch whose markers were lost still gets an account
      owned[mark_serial(*mark)].push_back(i);
    }
  }
  std::vector<Escaped> escaped;
  uint32_t first_start = UINT32_MAX;
  for (const auto& [serial, w] : windows)
    if (w.has_start) first_start = std::min(first_start, w.start_correlation);
  std::vector<const DeviceOperation*> strays;
  for (size_t i : foreign) {
    if (windows.empty()) break;
    const DeviceOperation& op = log.operations[i];
    if (!same_kernel_before && op.correlation < first_start) {
      strays.push_back(&op);
      continue;
    }
    // The launch whose calls it falls among, else the last one before it, else the first.
    uint64_t owner = windows.begin()->first;
    for (const auto& [serial, w] : windows)
      if (w.has_start && w.start_correlation < op.correlation) owner = serial;
    owned[owner].push_back(i);
    Cause cause = Cause::not_joined;
    for (const auto& [serial, w] : windows) {
      const Cause c = judge(op, places[i], w, streams.given);
      if (c == Cause::none) {
        cause = c;
        break;
      }
      if (serial == owner) cause = c;
    }
    if (cause != Cause::none) escaped.push_back({&op, cause});
  }

  Accounting result;
  for (const auto& [serial, w] : windows) {
    LaunchAccount launch;
    launch.serial = serial;
    std::vector<size_t> mine = owned[serial];
    std::sort(mine.begin(), mine.end(), [&](size_t a, size_t b) {
      return log.operations[a].correlation != log.operations[b].correlation
                 ? log.operations[a].correlation < log.operations[b].correlation
                 : log.operations[a].start_ns < log.operations[b].start_ns;
    });
    for (size_t i : mine) {
      const DeviceOperation& op = log.operations[i];
      launch.operations.push_back(op);
      const auto mark = mark_of(op.correlation);
      if (mark && mark_role(*mark) == MarkRole::launch) {
        const Cause cause = judge(op, places[i], w, streams.given);
        if (cause != Cause::none) escaped.push_back({&op, cause});
      }
    }
    launch.busy_us = busy_us(launch.operations);
    result.launches.push_back(std::move(launch));
  }
  if (!strays.empty())
    result.strays =
        fmt::format("{} operation{} enqueued by no launch call: {}, {:.1f} us{}", strays.size(),
                    strays.size() == 1 ? "" : "s", operation_display_name(*strays.front()),
                    duration_us(*strays.front()), strays.size() > 1 ? ", ..." : "");
  if (!escaped.empty()) {
    std::stable_sort(escaped.begin(), escaped.end(), [](const Escaped& a, const Escaped& b) {
      return a.op->correlation < b.op->correlation;
    });
    result.escape = escape_text(escaped, streams);
  }
  return result;
}

std::vector<OperationSummary> summarize_operations(const LaunchAccount& launch,
                                                   const TracedStreams& streams) {
  std::vector<OperationSummary> out;
  for (const DeviceOperation& op : launch.operations) {
    std::string stream = "other";
    if (op.stream == streams.given) stream = "given";
    if (op.stream == streams.legacy) stream = "legacy default";
    if (op.stream == streams.per_thread) stream = "per-thread default";
    // Mangled names of ATen's and c10's kernels (at::native::..., c10::...).
    const bool pytorch = op.kind != OperationKind::kernel || op.name.rfind("_ZN2at", 0) == 0 ||
                         op.name.rfind("_ZN3c10", 0) == 0;
    out.push_back({op.kind, operation_display_name(op), stream, duration_us(op), pytorch});
  }
  return out;
}

bool only_pytorch_library(const std::vector<OperationSummary>& operations) {
  if (operations.empty()) return false;
  for (const OperationSummary& op : operations)
    if (!op.pytorch_library) return false;
  return true;
}

OperationKind operation_kind_from(const std::string& text) {
  if (text == "memcpy") return OperationKind::memcpy;
  if (text == "memset") return OperationKind::memset;
  return OperationKind::kernel;
}

const char* to_string(OperationKind kind) {
  switch (kind) {
    case OperationKind::kernel:
      return "kernel";
    case OperationKind::memcpy:
      return "memcpy";
    case OperationKind::memset:
      return "memset";
  }
  return "operation";
}

namespace {

constexpr size_t kLongestName = 120;

std::string demangled(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? std::string(name.get()) : symbol;
}

// "void ns::(anonymous namespace)::kernel<float, 4>(float const*, int)" -> "kernel<float, 4>".
std::string short_function_name(const std::string& full) {
  std::string s = full;
  // The parameter list: the last top-level parenthesis group that ends the name.
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) {
        s.erase(i);
        break;
      }
    }
  }
  // Return type and namespaces: what follows the last top-level space or "::".
  int angle = 0, paren = 0;
  size_t begin = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') ++angle;
    if (c == '>') --angle;
    if (c == '(') ++paren;
    if (c == ')') --paren;
    if (angle != 0 || paren != 0) continue;
    if (c == ' ') begin = i + 1;
    if (c == ':' && i + 1 < s.size() && s[i + 1] == ':') begin = i + 2;
  }
  s = s.substr(begin);
  constexpr size_t kLongest = 60;
  if (s.size() > kLongest)
    if (const size_t open = s.find('<'); open != std::string::npos) s = s.substr(0, open) + "<...>";
  return s;
}

std::string byte_text(uint64_t bytes) {
  if (bytes >= 1000000000) return fmt::format("{:.1f} GB", static_cast<double>(bytes) / 1e9);
  if (bytes >= 1000000) return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6);
  if (bytes >= 1000) return fmt::format("{:.1f} KB", static_cast<double>(bytes) / 1e3);
  return fmt::format("{} B", bytes);
}

}  // namespace

std::string operation_display_name(const DeviceOperation& op) {
  switch (op.kind) {
    case OperationKind::kernel:
      // The name comes from the kernel's own binary: bounded, control characters escaped.
      return shown(short_function_name(demangled(op.name)), kLongestName);
    case OperationKind::memcpy:
      return fmt::format("memcpy {} {}", op.name, byte_text(op.bytes));
    case OperationKind::memset:
      return fmt::format("memset {}", byte_text(op.bytes));
  }
  return op.name;
}

}  // namespace normbench
