#include "app/render/report_table.hpp"

#include <fmt/format.h>

#include "app/render/report_format.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

namespace {
std::string shape_text(const ProblemConfig& c) {
  std::string dims;
  for (int64_t d : c.shape.shape) dims += (dims.empty() ? "" : "x") + std::to_string(d);
  return dims;
}

// "float32", "bfloat16 (weights float32)", "float16 nhwc".
std::string format_text(const ProblemShape& s) {
  std::string text(dtype_name(s.dtype));
  if (s.param_dtype != s.dtype) text += " (weights " + std::string(dtype_name(s.param_dtype)) + ")";
  if (s.channels_last()) text += " nhwc";
  return text;
}

// "  floor 2.9 us (latency, L2 evicted)": which floor binds the problem's % floor column.
std::string floor_text(const ProblemResult& p) {
  if (!p.floor || p.skipped) return "";
  const double us = p.floor->ms * 1e3;
  const std::string time = us >= 1000.0 ? fmt::format("{:.3f} ms", p.floor->ms)
                           : us >= 1.0  ? fmt::format("{:.1f} us", us)
                                        : fmt::format("{:.0f} ns", us * 1e3);
  if (p.floor->bound == FloorBound::copy) return "  floor " + time + " (copy)";
  return "  floor " + time + " (latency, L2 " + (p.config->timing.flush_l2 ? "evicted" : "kept") +
         ")";
}

std::string problem_line(const ProblemResult& p, bool several_gpus) {
  const ProblemConfig& c = *p.config;
  return fmt::format("{}  {} {} {}  {} segments of {}  min bytes {:.1f} MB{}{}{}\n", c.id,
                     op_name(c.shape.op), shape_text(c), format_text(c.shape), c.shape.num_segments,
                     c.shape.segment_size, static_cast<double>(c.shape.min_bytes()) / 1e6,
                     floor_text(p),
                     several_gpus && p.device ? fmt::format("  on GPU {}", *p.device) : "",
                     p.skipped ? "  SKIPPED: " + p.reason : "");
}

double worst_abs_error(const KernelResult& k) {
  double worst = 0.0;
  for (const auto& t : k.trials) worst = std::max(worst, t.result.max_abs_error);
  return worst;
}

std::string kernel_line(const KernelResult& k) {
  std::string timing = fmt::format("{:>10} {:>16}", "-", "-");
  std::string bandwidth = fmt::format("{:>8} {:>7}", "-", "-");
  std::string speedup = fmt::format("{:>8}", "-");
  const bool timed = k.status == KernelStatus::passed && k.timing;  // as the report writer
  if (timed) {
    const auto& s = k.timing->summary;
    // The spread shown is the 95% interval of the median, the precision sampling stops on.
    timing = fmt::format(
        "{:>10.4f} {:>16}", s.median,
        fmt::format("±{:.2f}% n={}",
                    100.0 * relative_half_width(k.timing->median_interval, s.median), s.count));
  }
  if (timed && k.bandwidth_gb_per_s)
    bandwidth = fmt::format("{:>8.0f} {:>7}", *k.bandwidth_gb_per_s,
                            k.percent_of_floor ? fmt::format("{:.0f}%", *k.percent_of_floor) : "-");
  if (timed && k.speedup_vs_baseline) speedup = fmt::format("{:>7.2f}x", *k.speedup_vs_baseline);
  const std::string error = k.trials.empty() ? "-" : fmt::format("{:.1e}", worst_abs_error(k));
  // The most of its tolerance any output used, in any trial, and which output that was where
  // there are several (dx, dweight, dbias; y and s).
  double use = 0.0;
  std::string worst_output;
  size_t outputs = 0;
  for (const auto& t : k.trials) {
    outputs = std::max(outputs, t.result.tensors.size());
    for (const TensorCheck& c : t.result.tensors)
      if (worst_output.empty() || c.accuracy.tolerance_use > use) {
        use = c.accuracy.tolerance_use;
        worst_output = c.tensor;
      }
  }
  const std::string tolerance = k.trials.empty() ? "-" : fmt::format("{:.0f}%", 100.0 * use);
  const std::string name =
      k.dispatches_to.empty()
          ? k.id
          : k.id + " -> " + k.dispatches_to.substr(k.dispatches_to.find('.') + 1);
  const std::string deterministic = k.deterministic ? (*k.deterministic ? "yes" : "no") : "-";
  const std::string worst =
      outputs > 1 ? "  worst output: " + terminal_safe(worst_output) : std::string();
  std::string line =
      fmt::format("  {:<50} {:<13} {} {} {} {:>8} {:>5} {:>4}{}\n", name, to_string(k.status),
                  timing, bandwidth, speedup, error, tolerance, deterministic, worst);
  // A plugin's reason may hold anything: no escape sequences reach the terminal.
  if (!k.reason.empty()) line += fmt::format("      {}\n", terminal_safe(k.reason));
  if (timed && !k.warning.empty()) line += fmt::format("      WARNING: {}\n", k.warning);
  // Kernel names come from the kernel's own binary: as untrusted as its reason.
  if (k.activity)
    line +=
        fmt::format("      ran {}\n",
                    terminal_safe(activity_detail(
                        k.activity->operations, k.activity->device_median_ms,
                        timed ? std::optional<double>(k.timing->summary.median) : std::nullopt)));
  return line;
}
}  // namespace

std::string format_run_table(const RunReport& r) {
  std::string out;
  const bool several = r.devices.size() > 1;
  if (several) {
    for (const DeviceRun& d : r.devices)
      out += fmt::format(
          "GPU {}: {} ({} SMs, cc {}.{}){}{}\n", d.info.index, d.info.name, d.info.sm_count,
          d.info.compute_capability_major, d.info.compute_capability_minor,
          d.copy_bandwidth ? fmt::format(", copy bandwidth {:.0f} GB/s", d.copy_bandwidth->gb_per_s)
                           : "",
          d.latency_floor
              ? ", latency floor " + latency_floor_text(latency_floor_ms(*d.latency_floor), "us")
              : "");
  } else {
    if (r.device)
      out += fmt::format("device: {} ({} SMs, cc {}.{})\n", r.device->name, r.device->sm_count,
                         r.device->compute_capability_major, r.device->compute_capability_minor);
    if (r.copy_bandwidth)
      out += fmt::format("copy bandwidth: {:.0f} GB/s (device-to-device, read + write)\n",
                         r.copy_bandwidth->gb_per_s);
    if (r.latency_floor)
      out += fmt::format("latency floor: {}, a launch that copies {} bytes\n",
                         latency_floor_text(latency_floor_ms(*r.latency_floor), "us"),
                         r.latency_floor->bytes_moved / 2);
  }
  if (r.copy_bandwidth || r.latency_floor)
    out +=
        "% floor: the problem's floor over the kernel's median; the floor is its minimum bytes "
        "at the copy bandwidth or, where longer, the latency floor\n";
  for (const DeviceRun& d : r.devices)
    if (!d.info.untraced.empty())
      out += fmt::format(
          "GPU {}: no activity trace ({}): work off the given stream is judged only by how long "
          "the device stays busy after it (50 us allowed)\n",
          d.info.index, d.info.untraced);
  for (const DeviceRun& d : r.devices)
    if (!d.info.unmonitored.empty())
      out += fmt::format(
          "GPU {}: clocks and throttling not read ({}): a throttled sample cannot be told from a "
          "slow one\n",
          d.info.index, d.info.unmonitored);
  if (r.shard) {
    size_t mine = 0;
    for (const WorkEntry& w : r.shard->work) mine += w.shard == r.shard->index;
    out += fmt::format("shard {}/{}: {} of {} (problem, kernel) pairs\n", r.shard->index,
                       r.shard->count, mine, r.shard->work.size());
  }
  for (const auto& p : r.problems) {
    out += "\n" + problem_line(p, several);
    out += fmt::format("  {:<50} {:<13} {:>10} {:>16} {:>8} {:>7} {:>8} {:>8} {:>5} {:>4}\n",
                       "kernel", "status", "median ms", "spread", "GB/s", "% floor", "speedup",
                       "max err", "tol", "det");
    for (const auto& k : p.kernels) out += kernel_line(k);
  }
  if (!r.aborted.empty()) out += "\nRUN ABORTED: " + r.aborted + "\n";
  return out;
}

}  // namespace normbench
