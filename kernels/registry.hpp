// The kernel registry. Each kernel variant registers itself at the bottom of its own .cu file
// with NORMBENCH_REGISTER_KERNEL; the harness, `normbench list` and the GPU tests discover
// variants here. Registration makes no CUDA call, so listing works on a machine without a GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
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

// Device pointers and the stream for one launch. Every pointer is 256-byte aligned (cudaMalloc)
// and of the problem's types (kernels/tensor_roles.hpp): x, residual, y, sum, dy, ds_out of
// problem.dtype, in the problem's layout; weight, bias, grad_weight and grad_bias of
// problem.param_dtype; mean and rstd float32, one per segment. workspace has the bytes the
// variant asked for and holds garbage on entry; every output, too.
struct KernelArgs {
  const void* x = nullptr;
  const void* residual = nullptr;  // add_rms_norm only, else null
  const void* weight = nullptr;    // null when !affine
  const void* bias = nullptr;      // null when !has_bias, and for the backward ops
  // A forward op's output; a backward op's dx (the gradient of x), of x's shape, dtype and layout.
  void* y = nullptr;
  void* sum = nullptr;  // add_rms_norm: where s = x + residual goes, else null
  // The backward ops: dy, the gradient of y, of x's shape, dtype and layout; the statistics the
  // forward saved, float32 per segment (rows, or (N, groups) for GroupNorm): the mean (null for
  // rms_norm_backward) and rstd = 1 / sqrt(var + eps), each the float64 value rounded once to
  // float32. A kernel may use them or recompute them from x. Null for the forward ops.
  const void* dy = nullptr;
  const void* mean = nullptr;
  const void* rstd = nullptr;
  // The backward ops: dweight (when affine) and dbias (when has_bias), param_size elements each;
  // else null.
  void* grad_weight = nullptr;
  void* grad_bias = nullptr;
  void* workspace = nullptr;
  cudaStream_t stream = nullptr;
  // add_rms_norm_backward: ds_out, the gradient flowing into the forward's s output, of x's
  // shape and dtype, which dx adds (x is then s, the sum the forward wrote); else null.
  const void* ds_out = nullptr;
};

// The problems a variant takes beyond the classic ones (ProblemShape::is_classic). The registry
// declines the others for it, with the reason, before its plan is asked: a variant written for
// float32 NCHW never sees data it would misread.
struct Accepts {
  bool low_precision = false;        // bfloat16/float16 data, weight and bias in that or float32
  bool channels_last = false;        // GroupNorm over NHWC
  bool weight_without_bias = false;  // a weight and no bias (bias: false, the RMSNorm ops)
  static Accepts everything() { return {true, true, true}; }
};

// What a variant decided for one problem on one device, computed once (as CUTLASS's
// can_implement / get_workspace_size / run over one configuration): whether it can run the
// problem, the scratch memory it needs, which variant a dispatcher picked, and the launch,
// which reuses the decisions instead of making them again.
struct KernelPlan {
  std::optional<std::string> unsupported;  // why the variant cannot run the problem
  size_t workspace_bytes = 0;
  std::string dispatches_to;  // a dispatching variant (`<op>.default`): the id it runs
  // Why the variant could not get ready for the problem (a Python candidate whose module does
  // not import or whose extension does not build): the kernel ends `error`, not not_supported.
  std::optional<std::string> error;
  // Enqueues the kernel(s) on args.stream; returns the launch error, if any. May instead throw
  // KernelLaunchError with a reason of its own (a Python candidate's exception).
  std::function<cudaError_t(const KernelArgs& args)> launch;
  // Called after each launch's timed region ends, on the same stream: a candidate that returns
  // its output in memory of its own copies it into args.y (and args.sum) here, so that the copy
  // is the harness's and not timed. Null for kernels that write args.y themselves.
  std::function<cudaError_t(const KernelArgs& args)> finish;
  // How long the GPU is held before each timed sample's start record, so that the launch call
  // is queued before the GPU reaches it and the events time GPU work, not host work: the L2
  // eviction's tens of microseconds cover a C++ launch, not Python's dispatch.
  double hold_us = 0.0;

  static KernelPlan declined(std::string why);
};

struct KernelVariant {
  Op op = Op::layer_norm;
  std::string id;            // stable, dotted: "<op>.<variant>", reports key on it
  std::string description;   // one line
  bool is_baseline = false;  // the naive kernel that speedups are measured against
  std::string origin;        // empty: built into normbench; else the plugin file it came from
  // A Python submission (--python, --kernelbench): if everything it ran was PyTorch's own
  // library, the report says so (its output may be right, but none of its kernels ran).
  bool python_submission = false;
  Accepts accepts;  // the problems beyond the classic ones it takes
  // Plans `problem` on `device`. Called once per problem and device; no CUDA call.
  std::function<KernelPlan(const ProblemShape& problem, const DeviceCaps& device)> plan;
};

// The signatures of variants that need no plan of their own (make_variant below).
using LaunchFunction = cudaError_t (*)(const ProblemShape& problem, const DeviceCaps& device,
                                       const KernelArgs& args);
using UnsupportedFunction = std::optional<std::string> (*)(const ProblemShape& problem,
                                                           const DeviceCaps& device);
using WorkspaceFunction = size_t (*)(const ProblemShape& problem, const DeviceCaps& device);

// Adds a variant; returns true so that it can initialise a static. Throws std::logic_error on a
// duplicate id or an id that does not start with "<op>.".
bool register_kernel(KernelVariant variant);
// Adds several variants at once (a plugin's): one sort and a hash of the ids, so that ten
// thousand take moments, not minutes. Throws as register_kernel, adding none then.
void register_kernels(std::vector<KernelVariant> variants);

// Shorthand for kernel files whose decisions are plain functions: the plan asks `unsupported`
// and `workspace` once (null: every shape supported; no workspace) and launches with `launch`.
KernelVariant make_variant(Op op, std::string id, std::string description, LaunchFunction launch,
                           UnsupportedFunction unsupported = nullptr,
                           WorkspaceFunction workspace = nullptr, bool is_baseline = false,
                           Accepts accepts = {});

// A variant that computes a plan of its own (the split and lookahead kernels: how a segment is
// cut over the SMs decides support, workspace and launch).
KernelVariant planned_variant(Op op, std::string id, std::string description,
                              decltype(KernelVariant::plan) plan, Accepts accepts = {});

// All variants, sorted by op, then baseline first, then id.
const std::vector<KernelVariant>& registered_kernels();

const KernelVariant* find_kernel(const std::string& id);

// Why `variant` does not take `problem`'s op or format, if it does not.
std::optional<std::string> declined_format(const KernelVariant& variant,
                                           const ProblemShape& problem);

// The variant's plan, declined with a reason when the variant is for another op or does not
// accept the problem's format.
KernelPlan plan_kernel(const KernelVariant& variant, const ProblemShape& problem,
                       const DeviceCaps& device);

}  // namespace normbench

#define NORMBENCH_CONCAT_INNER(a, b) a##b
#define NORMBENCH_CONCAT(a, b) NORMBENCH_CONCAT_INNER(a, b)
// Usage, at the bottom of a kernel file:
//   NORMBENCH_REGISTER_KERNEL(make_variant(Op::layer_norm, "layer_norm.x", "...", launch));
#define NORMBENCH_REGISTER_KERNEL(...)                                  \
  static const bool NORMBENCH_CONCAT(normbench_registered_, __LINE__) = \
      ::normbench::register_kernel(__VA_ARGS__)
