#include "app/render/report_format.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "app/util/json_checks.hpp"
#include "app/util/number_text.hpp"

namespace normbench {

namespace {
using Style = ReportCell::Style;

const char* kDash = "\u2014";  // an em dash: no value

struct TimeUnit {
  const char* name;
  double per_ms;
};

TimeUnit time_unit(double ms) {
  if (ms >= 1000.0) return {"s", 1e-3};
  if (ms >= 1.0) return {"ms", 1.0};
  if (ms >= 1e-3) return {"\u00b5s", 1e3};
  return {"ns", 1e6};
}

// Four significant digits, trailing zeros kept: 8.516, 2.210, 137.2, 462.6.
std::string in_unit(double ms, const TimeUnit& unit) {
  const double v = ms * unit.per_ms;
  return v >= 1000.0 ? fixed_digits(v, 0) : fmt::format("{:#.4g}", v);
}

std::string status_text(KernelStatus status) {
  switch (status) {
    case KernelStatus::failed:
      return "FAILED";
    case KernelStatus::not_supported:
      return "not supported";
    case KernelStatus::error:
      return "ERROR";
    default:
      return to_string(status);
  }
}

ReportCell status_cell(const ReportKernel& k) {
  if (k.status == KernelStatus::passed && !k.warning.empty())
    return report_cell("passed (warning)", Style::warn, k.warning);
  const Style style = k.status == KernelStatus::passed ? Style::good
                      : is_failure(k.status)           ? Style::bad
                                                       : Style::muted;
  return report_cell(status_text(k.status), style, k.reason);
}

// The median, and in its title the GPU's conditions around the samples.
ReportCell median_cell(const LoadedTiming& t) {
  std::string title = t.conditions_text;
  if (t.throttled_samples > 0)
    title += fmt::format("{}{} of {} samples taken while the GPU throttled ({})",
                         title.empty() ? "" : "; ", t.throttled_samples, t.samples_ms.size(),
                         t.throttle_reasons);
  return report_cell(format_time(t.median_ms), Style::plain, title);
}

ReportCell error_cell(const ReportKernel& k) {
  if (!k.max_abs_error) return no_value_cell();
  return report_cell(
      fmt::format("{:.2e}", *k.max_abs_error), Style::plain,
      k.max_rel_error ? fmt::format("max relative error {:.3g}", *k.max_rel_error) : "");
}

// "y: 43% of its tolerance (largest error 1.2e-06); 1.0 ULP at most, 0.50 at the 99.9th
// percentile, 97.1% exactly rounded" for each output.
std::string accuracy_detail(const ReportKernel& k) {
  std::string out;
  for (const LoadedAccuracy& a : k.accuracy) {
    out += (out.empty() ? "" : "; ") +
           fmt::format("{}: {:.0f}% of its tolerance", a.tensor, 100.0 * a.tolerance_use);
    if (a.max_abs_error) out += fmt::format(" (largest error {:.2g})", *a.max_abs_error);
    if (a.ulp_max && a.ulp_p999 && a.exactly_rounded)
      out += fmt::format(
          ", {:.2g} ULP at most, {:.2g} at the 99.9th percentile, {:.1f}% exactly "
          "rounded",
          *a.ulp_max, *a.ulp_p999, 100.0 * *a.exactly_rounded);
  }
  return out;
}

// The most of its tolerance any output uses: "43%", and which output where there are several
// ("43% dweight").
ReportCell tolerance_cell(const ReportKernel& k) {
  if (k.accuracy.empty()) return no_value_cell();
  const LoadedAccuracy* worst = &k.accuracy.front();
  for (const LoadedAccuracy& a : k.accuracy)
    if (a.tolerance_use > worst->tolerance_use) worst = &a;
  const double use = worst->tolerance_use;
  const Style style = use > 1.0 ? Style::bad : use > 0.8 ? Style::warn : Style::plain;
  const std::string which = k.accuracy.size() > 1 ? " " + worst->tensor : "";
  return report_cell(fmt::format("{:.0f}%{}", 100.0 * use, which), style, accuracy_detail(k));
}

// The largest ULP errors of any 16-bit output: "1.0 / 0.50".
ReportCell ulp_cell(const ReportKernel& k) {
  std::optional<double> max, p999;
  for (const LoadedAccuracy& a : k.accuracy) {
    if (a.ulp_max) max = std::max(max.value_or(0.0), *a.ulp_max);
    if (a.ulp_p999) p999 = std::max(p999.value_or(0.0), *a.ulp_p999);
  }
  if (!max || !p999) return no_value_cell();
  return report_cell(fmt::format("{:.2g} / {:.2g}", *max, *p999), Style::plain, accuracy_detail(k));
}

// Reported, not enforced: a kernel may be right without being bitwise reproducible.
ReportCell deterministic_cell(const ReportKernel& k) {
  if (!k.deterministic) return no_value_cell();
  return *k.deterministic ? report_cell("yes", Style::plain,
                                        "two launches on the same inputs: bitwise identical")
                          : report_cell("no", Style::warn,
                                        "two launches on the same inputs gave different bits");
}

ReportCell spread_cell(const LoadedTiming& t) {
  const TimeUnit unit = time_unit(t.median_ms);
  const std::string detail =
      fmt::format("{} samples, relative stdev {}%, min {} max {}, stopped: {}", t.samples_ms.size(),
                  fixed_digits(100.0 * t.relative_stdev, 2), format_time(t.min_ms),
                  format_time(t.max_ms), t.stop_reason.empty() ? "?" : t.stop_reason);
  // Sampling that ran out of time never got as precise as the config asks: flag it.
  const Style style = t.stop_reason == "time_limit" ? Style::warn : Style::plain;
  if (!t.median_ci_ms)  // a schema 1 report: the stdev is what it has
    return report_cell(
        fmt::format("\u00b1{}% stdev ({}\u2013{} {})", fixed_digits(100.0 * t.relative_stdev, 2),
                    in_unit(t.min_ms, unit), in_unit(t.max_ms, unit), unit.name),
        style, detail);
  const auto [low, high] = *t.median_ci_ms;
  const double half =
      t.median_ms > 0.0 ? std::max(t.median_ms - low, high - t.median_ms) / t.median_ms : 0.0;
  return report_cell(fmt::format("\u00b1{}% ({}\u2013{} {})", fixed_digits(100.0 * half, 2),
                                 in_unit(low, unit), in_unit(high, unit), unit.name),
                     style, detail);
}

// The kernel's % of its problem's floor, and in its title which floor that is.
ReportCell percent_cell(const ReportKernel& k, bool l2_evicted) {
  if (!k.percent_of_floor || !k.floor) return no_value_cell();
  if (k.suspicious)
    return report_cell(
        format_percent(*k.percent_of_floor) + " (suspicious)", Style::warn,
        "faster than a plain copy of the same bytes: the bytes or the timing are wrong");
  std::string title = "of the floor " + floor_text(*k.floor, l2_evicted);
  if (k.percent_of_copy) title += "; " + format_percent(*k.percent_of_copy) + " of copy";
  return report_cell(format_percent(*k.percent_of_floor), Style::plain, title);
}

std::string activity_text(const ReportKernel& k) {
  const LoadedActivity& a = *k.activity;
  std::string out =
      activity_detail(a.operations, a.device_median_ms,
                      k.timing ? std::optional<double>(k.timing->median_ms) : std::nullopt);
  if (!a.label.empty()) out += " (" + a.label + ")";
  if (!a.strays.empty())
    out += "; before its first launch the device also ran " + a.strays +
           " (left by the kernel before it, not charged to this one)";
  return out;
}

ReportCell activity_cell(const ReportKernel& k) {
  if (!k.activity) return no_value_cell();
  const std::string cell = activity_cell_text(k.activity->operations) +
                           (k.activity->label.empty() ? "" : " (" + k.activity->label + ")");
  return report_cell(cell, k.activity->label.empty() ? Style::plain : Style::warn,
                     activity_text(k));
}

void add_column(ReportTable& t, std::string header, bool numeric) {
  t.headers.push_back(std::move(header));
  t.numeric.push_back(numeric);
}
}  // namespace

ReportCell report_cell(std::string text, ReportCell::Style style, std::string title) {
  return {std::move(text), style, std::move(title)};
}

ReportCell no_value_cell() {
  return report_cell(kDash, Style::muted);
}

ReportCell speedup_cell(const std::optional<double>& ratio) {
  if (!ratio) return no_value_cell();
  const Style style = *ratio > 1.005 ? Style::good : *ratio < 0.995 ? Style::slower : Style::plain;
  return report_cell(format_speedup(*ratio), style);
}

std::string format_time(double ms) {
  const TimeUnit unit = time_unit(ms);
  return in_unit(ms, unit) + " " + unit.name;
}

std::string format_speedup(double ratio) {
  if (ratio >= 100.0) return fixed_digits(ratio, 0) + "\u00d7";
  if (ratio >= 10.0) return fmt::format("{:.1f}\u00d7", ratio);
  if (ratio >= 0.1) return fmt::format("{:.2f}\u00d7", ratio);
  return fmt::format("{:.2g}\u00d7", ratio);
}

std::string format_gb_per_s(double gb_per_s) {
  return fixed_digits(gb_per_s, gb_per_s >= 100.0 ? 0 : 1);
}

std::string format_percent(double percent) {
  return fixed_digits(percent, 1) + "%";
}

std::string floor_text(const ProblemFloor& floor, bool l2_evicted) {
  if (floor.bound == FloorBound::copy) return format_time(floor.ms) + " (copy)";
  return format_time(floor.ms) + " (latency, L2 " + (l2_evicted ? "evicted" : "kept") + ")";
}

std::string format_bytes(int64_t bytes) {
  const auto b = static_cast<double>(bytes);
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} kB", b / 1e3);
  return fmt::format("{} B", bytes);
}

namespace {
std::string counted(size_t n, const char* what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

// "2 kernels, 1 memset"
std::string operation_counts(const std::vector<OperationSummary>& ops) {
  std::string out;
  for (OperationKind kind : {OperationKind::kernel, OperationKind::memcpy, OperationKind::memset}) {
    const auto n = static_cast<size_t>(std::count_if(
        ops.begin(), ops.end(), [&](const OperationSummary& op) { return op.kind == kind; }));
    if (n > 0) out += (out.empty() ? "" : ", ") + counted(n, to_string(kind));
  }
  return out;
}
}  // namespace

std::string activity_cell_text(const std::vector<OperationSummary>& ops) {
  if (ops.empty()) return "nothing";
  if (ops.size() == 1) return ops.front().name;
  return counted(ops.size(), "operation") + ": " + operation_counts(ops);
}

std::string activity_detail(const std::vector<OperationSummary>& ops,
                            std::optional<double> device_median_ms,
                            std::optional<double> event_median_ms) {
  if (ops.empty()) return "no device operation";
  double total_us = 0.0;
  for (const OperationSummary& op : ops) total_us += op.duration_us;
  constexpr size_t kShown = 6;
  std::string out = operation_counts(ops) + ":";
  for (size_t i = 0; i < ops.size() && i < kShown; ++i) {
    const OperationSummary& op = ops[i];
    out += fmt::format("{} {} {}", i == 0 ? "" : ",", op.name, format_time(op.duration_us / 1e3));
    if (total_us > 0.0) out += fmt::format(" ({:.0f}%)", 100.0 * op.duration_us / total_us);
    // Off the given stream, where the trace knew the stream ("unknown": PyTorch's profiler).
    if (op.stream != "given" && op.stream != "unknown") out += " on the " + op.stream + " stream";
  }
  if (ops.size() > kShown) out += fmt::format(", and {} more", ops.size() - kShown);
  if (device_median_ms && event_median_ms)
    out += fmt::format("; device time {} of the {} event-timed median",
                       format_time(*device_median_ms), format_time(*event_median_ms));
  return out;
}

std::optional<ProblemFloor> problem_floor_of(const ReportProblem& p) {
  const std::string default_id = p.op + ".default";
  for (const auto& k : p.kernels)
    if (k.id == default_id && k.floor) return k.floor;
  for (const auto& k : p.kernels)
    if (k.floor) return k.floor;
  return std::nullopt;
}

std::string problem_summary(const ReportProblem& p) {
  std::string out = p.op + " " + format_dims(p.shape);
  if (p.min_bytes) out += ", at least " + format_bytes(*p.min_bytes) + " moved";
  if (const auto floor = problem_floor_of(p)) out += "; floor " + floor_text(*floor, p.l2_evicted);
  return out;
}

std::string baseline_header(const ReportProblem& p) {
  const std::string suffix = ".naive";
  const std::string& id = p.baseline_id;
  if (id.size() >= suffix.size() &&
      id.compare(id.size() - suffix.size(), suffix.size(), suffix) == 0)
    return "vs naive";
  return "vs " + (id.empty() ? std::string("baseline") : id);
}

ReportTable problem_table(const ReportModel& model, const ReportProblem& p) {
  const bool several = model.sources.size() > 1;
  ReportTable t;
  add_column(t, "Kernel", false);
  if (several) add_column(t, "Report", false);
  add_column(t, "Verification", false);
  add_column(t, "Max abs error", true);
  // Reports written before accuracy was measured have none: no column then.
  bool measured = false, in_ulps = false;
  for (const auto& k : p.kernels)
    for (const LoadedAccuracy& a : k.accuracy) {
      measured = true;
      in_ulps = in_ulps || a.ulp_max.has_value();
    }
  if (measured) add_column(t, "Tolerance used", true);
  if (in_ulps) add_column(t, "ULP, max / 99.9%", true);
  add_column(t, "Deterministic", false);
  add_column(t, "Median", true);
  add_column(t, "95% interval of the median", true);
  add_column(t, "GB/s", true);
  add_column(t, "% of floor", true);
  add_column(t, baseline_header(p), true);
  if (model.has_torch_eager) add_column(t, std::string("vs ") + kTorchEagerId, true);
  if (model.has_torch_compile) add_column(t, std::string("vs ") + kTorchCompileId, true);
  bool traced = false;
  for (const auto& k : p.kernels) traced = traced || k.activity;
  if (traced) add_column(t, "Ran on the device", false);

  for (const auto& k : p.kernels) {
    std::vector<ReportCell> row;
    row.push_back(
        report_cell(k.id + (k.is_baseline ? " (baseline)" : ""), Style::plain, k.description));
    if (several) row.push_back(report_cell(model.sources[k.source].label, Style::muted));
    row.push_back(status_cell(k));
    row.push_back(error_cell(k));
    if (measured) row.push_back(tolerance_cell(k));
    if (in_ulps) row.push_back(ulp_cell(k));
    row.push_back(deterministic_cell(k));
    if (k.timing) {
      row.push_back(median_cell(*k.timing));
      row.push_back(spread_cell(*k.timing));
    } else {
      row.push_back(
          report_cell(k.status == KernelStatus::passed ? "not timed" : kDash, Style::muted));
      row.push_back(no_value_cell());
    }
    row.push_back(k.gb_per_s ? report_cell(format_gb_per_s(*k.gb_per_s)) : no_value_cell());
    row.push_back(percent_cell(k, p.l2_evicted));
    row.push_back(speedup_cell(k.vs_baseline));
    if (model.has_torch_eager) row.push_back(speedup_cell(k.vs_torch_eager));
    if (model.has_torch_compile) row.push_back(speedup_cell(k.vs_torch_compile));
    if (traced) row.push_back(activity_cell(k));
    t.rows.push_back(std::move(row));
    if (k.status != KernelStatus::passed && !k.reason.empty())
      t.notes.push_back(k.id + " (" + status_text(k.status) + "): " + k.reason);
    if (k.status == KernelStatus::passed && !k.warning.empty())
      t.notes.push_back(k.id + " (warning): " + k.warning);
    // A launch of more than one operation, or one off the given stream, is worth a line.
    if (k.activity &&
        (k.activity->operations.size() > 1 || !k.activity->label.empty() ||
         !k.activity->strays.empty() ||
         (k.activity->operations.size() == 1 && k.activity->operations.front().stream != "given" &&
          k.activity->operations.front().stream != "unknown")))
      t.notes.push_back(k.id + " ran " + activity_text(k));
  }
  return t;
}

ReportTable sources_table(const ReportModel& model) {
  // Reports older than the latency floor have none: no column then.
  bool latency = false;
  for (const auto& s : model.sources) {
    latency = latency || s.header.latency_floor;
    for (const LoadedDevice& d : s.header.devices) latency = latency || d.latency_floor;
  }
  ReportTable t;
  add_column(t, "Report", false);
  add_column(t, "Tool", false);
  add_column(t, "GPU", false);
  add_column(t, "Copy GB/s", true);
  if (latency) add_column(t, "Latency floor", false);
  add_column(t, "Created", false);
  add_column(t, "Config", false);
  for (const auto& s : model.sources) {
    std::vector<ReportCell> row;
    const ReportHeader& h = s.header;
    row.push_back(report_cell(s.label, Style::plain, h.path));
    row.push_back(s.tool.empty() ? no_value_cell() : report_cell(s.tool));
    if (h.devices.size() > 1) {  // --devices or merged shards: every GPU and its copy
      std::string detail, copies;
      std::vector<std::string> models;
      for (const LoadedDevice& d : h.devices) {
        detail += (detail.empty() ? "" : ", ") + fmt::format("GPU {}", d.index) +
                  (d.shard ? fmt::format(" of shard {}", *d.shard) : "") + ": " + d.name;
        copies += (copies.empty() ? "" : ", ") +
                  (d.copy_gb_per_s ? format_gb_per_s(*d.copy_gb_per_s) : std::string(kDash));
        if (std::find(models.begin(), models.end(), d.name) == models.end())
          models.push_back(d.name);
      }
      std::string shown = models.size() == 1
                              ? fmt::format("{} \u00d7 {}", h.devices.size(), models.front())
                              : std::string();
      for (size_t i = 0; models.size() > 1 && i < models.size(); ++i)
        shown += (i ? ", " : "") + models[i];
      row.push_back(report_cell(shown, Style::plain, detail));
      row.push_back(report_cell(copies));
      if (latency) {
        std::string floors;
        for (const LoadedDevice& d : h.devices)
          floors += (floors.empty() ? "" : "; ") + fmt::format("GPU {}: ", d.index) +
                    (d.latency_floor ? latency_floor_text(*d.latency_floor, "\u00b5s")
                                     : std::string(kDash));
        row.push_back(report_cell(floors));
      }
    } else {
      row.push_back(h.device_name.empty() ? no_value_cell() : report_cell(h.device_name));
      row.push_back(h.copy_gb_per_s ? report_cell(format_gb_per_s(*h.copy_gb_per_s))
                                    : no_value_cell());
      if (latency)
        row.push_back(h.latency_floor ? report_cell(latency_floor_text(*h.latency_floor, "\u00b5s"))
                                      : no_value_cell());
    }
    row.push_back(h.created_at.empty() ? no_value_cell() : report_cell(h.created_at));
    const std::string config =
        h.config_name + (h.config_hash.empty() ? "" : " (" + h.config_hash + ")");
    row.push_back(config.empty() ? no_value_cell() : report_cell(config));
    t.rows.push_back(std::move(row));
    for (const LoadedDevice& d : h.devices)
      if (!d.unmonitored.empty())
        t.notes.push_back(fmt::format(
            "{}: clocks and throttling not read on GPU {} ({}): a throttled sample cannot be "
            "told from a slow one",
            s.label, d.index, d.unmonitored));
    for (const LoadedDevice& d : h.devices)
      if (!d.untraced.empty())
        t.notes.push_back(fmt::format(
            "{}: no activity trace on GPU {} ({}): work off the given stream was judged only by "
            "how long the device stayed busy after it (50 \u00b5s allowed)",
            s.label, d.index, d.untraced));
  }
  return t;
}

}  // namespace normbench
