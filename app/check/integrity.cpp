#include "app/check/integrity.hpp"

#include <fmt/format.h>

namespace normbench {

namespace {
std::string bytes_text(uint64_t n) {
  return fmt::format("{} byte{}", n, n == 1 ? "" : "s");
}

std::optional<std::string> damage_text(const GuardDamage& d, const std::string& what) {
  if (!d.any()) return std::nullopt;
  std::string where;
  if (d.before_bytes > 0)
    where = fmt::format("{} before it (up to {} before the start)", bytes_text(d.before_bytes),
                        bytes_text(d.before_reach));
  if (d.after_bytes > 0)
    where += fmt::format("{}{} after it (up to {} past the end)", where.empty() ? "" : " and ",
                         bytes_text(d.after_bytes), bytes_text(d.after_reach));
  return fmt::format("wrote outside its {}: {}", what, where);
}
}  // namespace

std::optional<std::string> guard_failure(const std::vector<OutputGuard>& outputs,
                                         const GuardDamage& workspace) {
  for (const OutputGuard& g : outputs)
    if (auto text = damage_text(g.damage, g.output == "y" ? "output" : "output " + g.output))
      return text;
  return damage_text(workspace, "workspace");
}

std::optional<std::string> escaped_work_failure(double escaped_us) {
  if (escaped_us <= kEscapedWorkLimitUs) return std::nullopt;
  return fmt::format(
      "left work running outside the stream it was given: the device stayed busy {:.0f} us "
      "after that stream finished (allowed: {:.0f} us)",
      escaped_us, kEscapedWorkLimitUs);
}

namespace {
int64_t beyond_l2(int64_t bytes, int64_t l2_bytes) {
  return bytes > l2_bytes ? bytes - l2_bytes : 0;
}
int64_t dram_bytes(const CopyFloor& f) {
  const int64_t reads = f.l2_evicted ? f.read_bytes : beyond_l2(f.read_bytes, f.l2_bytes);
  return reads + beyond_l2(f.write_bytes, f.l2_bytes);
}
}  // namespace

double copy_floor_ms(const CopyFloor& f) {
  if (f.copy_gb_per_s <= 0.0) return 0.0;
  return static_cast<double>(dram_bytes(f)) / (f.copy_gb_per_s * 1e6);
}

std::optional<std::string> below_copy_floor(double median_ms, const CopyFloor& f) {
  const double floor = copy_floor_ms(f);
  if (floor <= 0.0 || median_ms >= (1.0 - kCopyFloorMargin) * floor) return std::nullopt;
  return fmt::format(
      "median {:.4g} ms is faster than moving the problem's bytes through DRAM ({:.1f} MB at "
      "the measured copy bandwidth of {:.0f} GB/s take {:.4g} ms; allowed: down to {:.0f}% of "
      "that): the bytes were not all moved, or the time is not what ran "
      "(--allow-faster-than-copy makes this a warning)",
      median_ms, static_cast<double>(dram_bytes(f)) / 1e6, f.copy_gb_per_s, floor,
      100.0 * (1.0 - kCopyFloorMargin));
}

}  // namespace normbench
