// The kernel registry. Each kernel variant registers itself at the bottom of its own .cu file
// with NORMBENCH_REGISTER_KERNEL; the harness, `normbench list` and the GPU tests discover
// variants here. Registration makes no CUDA call, so listing works on a machine without a GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "kernels/problem_shape.hpp"

namespace normbench {

// What a kernel may ask about the device it will run on, read once by the harness.
struct DeviceCaps {
  int sm_count = 0;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  size_t shared_memory_per_block_optin = 0;  // the most a block may opt in to
  size_t shared_memory_per_sm = 0;
  int max_threads_per_sm = 0;
  bool cooperative_launch = false;
};

// Device pointers and the stream for one launch. weight and bias are null when !affine.
// x is 16-byte aligned (cudaMalloc); workspace has the bytes the variant asked for and holds
// garbage on entry.
struct KernelArgs {
  const float* x = nullptr;
  const float* weight = nullptr;
  const float* bias = nullptr;
  float* y = nullptr;
  void* workspace = nullptr;
  cudaStream_t stream = nullptr;
};

struct KernelVariant {
  Op op = Op::layer_norm;
  std::string id;            // stable, dotted: "<op>.<variant>", reports key on it
  std::string description;   // one line
  bool is_baseline = false;  // the naive kernel that speedups are measured against
  // Why this variant cannot run `problem` on `device`, or nullopt if it can.
  std::optional<std::string> (*unsupported_reason)(const ProblemShape& problem,
                                                   const DeviceCaps& device) = nullptr;
  // Scratch device memory the variant needs; null means none.
  size_t (*workspace_bytes)(const ProblemShape& problem, const DeviceCaps& device) = nullptr;
  // For a dispatching variant (`<op>.default`): the variant it runs for this problem.
  const KernelVariant* (*dispatches_to)(const ProblemShape& problem,
                                        const DeviceCaps& device) = nullptr;
  // Enqueues the kernel(s) on args.stream; returns the launch error, if any.
  cudaError_t (*launch)(const ProblemShape& problem, const DeviceCaps& device,
                        const KernelArgs& args) = nullptr;
};

// Adds a variant; returns true so that it can initialise a static. Throws std::logic_error on a
// duplicate id or an id that does not start with "<op>.".
bool register_kernel(KernelVariant variant);

// Shorthand for kernel files. `workspace` and `unsupported` may be null (none needed; every
// shape supported).
KernelVariant make_variant(Op op, std::string id, std::string description,
                           decltype(KernelVariant::launch) launch,
                           decltype(KernelVariant::unsupported_reason) unsupported = nullptr,
                           decltype(KernelVariant::workspace_bytes) workspace = nullptr,
                           bool is_baseline = false);

// All variants, sorted by op, then baseline first, then id.
const std::vector<KernelVariant>& registered_kernels();

const KernelVariant* find_kernel(const std::string& id);

std::optional<std::string> unsupported_reason(const KernelVariant& variant,
                                              const ProblemShape& problem,
                                              const DeviceCaps& device);
size_t workspace_bytes(const KernelVariant& variant, const ProblemShape& problem,
                       const DeviceCaps& device);

}  // namespace normbench

#define NORMBENCH_CONCAT_INNER(a, b) a##b
#define NORMBENCH_CONCAT(a, b) NORMBENCH_CONCAT_INNER(a, b)
// Usage, at the bottom of a kernel file:
//   NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x", "...", launch));
#define NORMBENCH_REGISTER_KERNEL(...)                                  \
  static const bool NORMBENCH_CONCAT(normbench_registered_, __LINE__) = \
      ::normbench::register_kernel(__VA_ARGS__)
