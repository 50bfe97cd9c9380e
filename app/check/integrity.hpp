// The checks that keep a kernel from fooling the harness, as rules over what the worker
// observed: writes outside the output or workspace (guard damage), work left running outside
// the stream it was given (escaped work), and a median faster than copying the problem's bytes.
// Each returns why the kernel fails, or nothing. The README's threat model describes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace normbench {

struct GuardDamage {
  uint64_t before_bytes = 0;  // bytes in the front guard that differ from the pattern
  uint64_t after_bytes = 0;   // bytes in the back guard that differ from the pattern
  uint64_t before_reach = 0;  // how far before the start the farthest damaged byte lies
  uint64_t after_reach = 0;   // how far past the end (1 = the first byte past it)
  bool any() const { return before_bytes + after_bytes > 0; }
};

// The guards of one output, named as kernels/tensor_roles.hpp names it ("y", "s", "dx", ...).
struct OutputGuard {
  std::string output;
  GuardDamage damage;
};

// "wrote outside its output: 4 bytes after it (up to 4 bytes past the end)" for y; another
// output is named ("wrote outside its output s: ..."), the outputs checked in order, then the
// workspace.
std::optional<std::string> guard_failure(const std::vector<OutputGuard>& outputs,
                                         const GuardDamage& workspace);

// After the stream the kernel was given has finished, the device may stay busy for the time a
// cudaDeviceSynchronize call takes (a few microseconds). Longer means the kernel left work on
// another stream: its time was not measured, and its output may not be complete when read.
inline constexpr double kEscapedWorkLimitUs = 50.0;
std::optional<std::string> escaped_work_failure(double escaped_us);

// The least a kernel's bytes can take through DRAM at the measured copy bandwidth (read plus
// written, as the copy counts them). With L2 evicted before each sample every input byte comes
// from DRAM, but up to an L2's worth of output may still sit in L2 when the kernel ends; with
// L2 not evicted, inputs may be served from it too. A median below this floor, with a margin,
// means the bytes were not all moved or the time is not what ran.
struct CopyFloor {
  int64_t read_bytes = 0;
  int64_t write_bytes = 0;
  int64_t l2_bytes = 0;
  bool l2_evicted = true;
  double copy_gb_per_s = 0.0;
};
double copy_floor_ms(const CopyFloor& floor);
// The copy is not the hardware's ceiling: kernels reach 100% of it (problem C on the H100) and a
// copy measured in a slower moment reads lower. Only a median more than 10% below the floor
// fails (more than 111% of copy bandwidth); between 100% and that it is marked suspicious.
inline constexpr double kCopyFloorMargin = 0.10;
std::optional<std::string> below_copy_floor(double median_ms, const CopyFloor& floor);

}  // namespace normbench
