// normbench's bfloat16 row kernel as the decode probes launch it (decode_floor.cu,
// decode_cache_hints.cu): the wide_rows kernel with its plan, and the hints normbench's
// `<op>.row_in_registers` gives decode rows, its load and store hints replaceable. Include after
// probe_support.cuh, and build with kernels/families/wide_rows_plan.cpp,
// kernels/problem_shape.cpp, kernels/tensor_roles.cpp and kernels/registry.cpp.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <functional>

#include "kernels/families/wide_rows.cuh"
#include "kernels/families/wide_rows_plan.hpp"

namespace {

// The load and store hints normbench's row kernels ship with: RMSNorm and add_rms_norm
// evict-last loads and evict-first stores; LayerNorm none.
constexpr int kShippedRmsLoadsStores =
    normbench::kernels::kWideRowsEvictLastLoads | normbench::kernels::kWideRowsStreamStores;
constexpr int kShippedLayerNormLoadsStores = 0;

// The arguments of `op` over these buffers: x (and add_rms_norm's residual), the weight, and
// LayerNorm's bias in `params` after the weight's `hidden` values; y (and add_rms_norm's sum).
inline normbench::KernelArgs row_kernel_args(normbench::Op op, int hidden, const uint4* x,
                                             const uint4* residual, uint4* y, uint4* sum,
                                             const uint4* params) {
  using normbench::Op;
  normbench::KernelArgs args;
  args.x = x;
  args.residual = op == Op::add_rms_norm ? residual : nullptr;
  args.weight = params;
  args.bias = op == Op::layer_norm ? params + hidden / 8 : nullptr;
  args.y = y;
  args.sum = op == Op::add_rms_norm ? sum : nullptr;
  return args;
}

// The row kernel for `rows` bfloat16 rows of `hidden`, loading and storing with kLoadsStores,
// planned as normbench's `<op>.row_in_registers` plans it (plan_wide_rows_variant: the early
// parameters and the two-vector kernel's form where the rows start at once, the tail prefetch
// where they do not), the rest of its hints as that variant has them: add_rms_norm's early
// parameters, loaded first on its fewest rows; LayerNorm's one guarded reduction and tail prefetch.
template <int kLoadsStores>
std::function<void(cudaStream_t)> row_kernel(normbench::Op op, int rows, int hidden, int sms,
                                             const normbench::KernelArgs& args) {
  using namespace normbench;
  using namespace normbench::kernels;
  ProblemFormat format;
  format.dtype = DType::bfloat16;
  format.param_dtype = DType::bfloat16;
  const ProblemShape p =
      make_problem_shape(op, {rows, hidden}, {hidden}, 0, 1e-5, 1.0, true, format);
  DeviceCaps device;
  device.sm_count = sms;
  const IdentityEpilogue e{};
  constexpr int kAddRms = kLoadsStores | kWideRowsEarlyParams;
  constexpr int kLayer = kLoadsStores | kWideRowsOneReduction | kWideRowsPrefetchTail;
  KernelPlan plan;
  if (op == Op::rms_norm) plan = plan_wide_rows_variant<Norm::rms, kLoadsStores>(p, device, e);
  if (op == Op::add_rms_norm)
    plan = rows <= kWideRowsParamsFirstMaxRows
               ? plan_wide_rows_variant<Norm::add_rms, kAddRms | kWideRowsParamsFirst>(p, device, e)
               : plan_wide_rows_variant<Norm::add_rms, kAddRms>(p, device, e);
  if (op == Op::layer_norm) plan = plan_wide_rows_variant<Norm::centered, kLayer>(p, device, e);
  if (!plan.launch) {
    std::fprintf(stderr, "row kernel declined %d rows of %d: %s\n", rows, hidden,
                 plan.unsupported.value_or("").c_str());
    std::exit(1);
  }
  return [=](cudaStream_t s) {
    KernelArgs a = args;
    a.stream = s;
    CHECK(plan.launch(a));
  };
}

}  // namespace
