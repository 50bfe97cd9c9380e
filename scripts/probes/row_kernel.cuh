// normbench's bfloat16 row kernel as the decode probes launch it (decode_floor.cu,
// decode_cache_hints.cu): the wide_rows kernel with its plan, and the hints normbench's
// `<op>.row_in_registers` gives decode rows, its load and store hints replaceable. Include after
// probe_support.cuh, and build with kernels/families/wide_rows_plan.cpp,
// kernels/problem_shape.cpp and kernels/tensor_roles.cpp.
#pragma once

#include <cuda_runtime.h>

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
// the rest of its hints as normbench's variant has them: early parameters where
// plan_wide_rows_variant adds them (rows that start at once: up to four blocks an SM for RMSNorm,
// two for the others; add_rms_norm always), without the tail prefetch then; LayerNorm's one
// guarded reduction, and its tail prefetch beyond two blocks an SM.
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
  const WideRowsPlan rows_plan = plan_wide_rows(p, rows <= 4 * sms);
  const bool early = rows <= (op == Op::rms_norm ? 4 : 2) * sms;
  constexpr int kLayer = kLoadsStores | kWideRowsOneReduction;
  // The two-vector kernel's form as the variant picks it (with_latency_form: exact fit, guarded
  // or four-block, by the occupancy the device reports), for the hints launched below.
  DeviceCaps caps;
  caps.sm_count = sms;
  using E = IdentityEpilogue;
  constexpr int kEarly = kLoadsStores | kWideRowsEarlyParams;
  WideRowsPlan plan = rows_plan;
  if (op == Op::rms_norm)
    plan = early ? with_latency_form<Norm::rms, kEarly, E>(p, rows_plan, caps)
                 : with_latency_form<Norm::rms, kLoadsStores, E>(p, rows_plan, caps);
  if (op == Op::add_rms_norm)
    plan = with_latency_form<Norm::add_rms, kEarly, E>(p, rows_plan, caps);
  if (op == Op::layer_norm && early)
    plan = with_latency_form<Norm::centered, kLayer | kWideRowsEarlyParams, E>(p, rows_plan, caps);
  return [=](cudaStream_t s) {
    KernelArgs a = args;
    a.stream = s;
    const IdentityEpilogue e{};
    cudaError_t error = cudaSuccess;
    if (op == Op::rms_norm)
      error = early
                  ? launch_wide_rows<Norm::rms, kLoadsStores | kWideRowsEarlyParams>(p, plan, a, e)
                  : launch_wide_rows<Norm::rms, kLoadsStores>(p, plan, a, e);
    if (op == Op::add_rms_norm)
      error = launch_wide_rows<Norm::add_rms, kLoadsStores | kWideRowsEarlyParams>(p, plan, a, e);
    if (op == Op::layer_norm)
      error = early
                  ? launch_wide_rows<Norm::centered, kLayer | kWideRowsEarlyParams>(p, plan, a, e)
                  : launch_wide_rows<Norm::centered, kLayer | kWideRowsPrefetchTail>(p, plan, a, e);
    CHECK(error);
  };
}

}  // namespace
