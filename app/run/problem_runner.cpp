#include "app/run/problem_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "app/check/verify.hpp"
#include "app/device/cuda_check.hpp"
#include "app/device/device_buffer.hpp"
#include "app/device/device_checks.hpp"
#include "app/inputs/inputs.hpp"
#include "app/results/tensor_dump.hpp"
#include "reference/normalization_reference.hpp"

namespace normbench {

namespace {

// Device copies of a problem's tensors, plus the fingerprints its inputs must keep.
struct DeviceTensors {
  DeviceBuffer x, weight, bias, y, workspace;
  uint64_t x_print = 0, weight_print = 0, bias_print = 0;
};

std::optional<uint64_t> available_host_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (meminfo >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return std::nullopt;
}

std::string gigabytes(double bytes) {
  return fmt::format("{:.2f} GB", bytes / 1e9);
}

// Why the problem cannot run here, if it cannot: it must fit in device and host memory.
std::optional<std::string> resource_problem(const ProblemShape& shape, size_t workspace) {
  const double x_bytes = static_cast<double>(shape.num_elements) * sizeof(float);
  const double params = 2.0 * static_cast<double>(shape.param_size) * sizeof(float);
  const double device_needed = 2 * x_bytes + params + static_cast<double>(workspace) + 256e6;
  const auto device_free = static_cast<double>(free_device_memory());
  if (device_needed > device_free)
    return "does not fit in GPU memory: needs " + gigabytes(device_needed) + ", " +
           gigabytes(device_free) + " free";
  const double host_needed = 2 * x_bytes + params;
  if (auto host_free = available_host_memory(); host_free && host_needed > *host_free)
    return "does not fit in host memory: needs " + gigabytes(host_needed) + ", " +
           gigabytes(static_cast<double>(*host_free)) + " available";
  return std::nullopt;
}

void upload(const HostTensor& host, const DeviceBuffer& device, cudaStream_t stream) {
  if (host.size == 0) return;
  NORMBENCH_CUDA_CHECK(
      cudaMemcpyAsync(device.get(), host.begin(), host.bytes(), cudaMemcpyHostToDevice, stream));
}

void upload_inputs(const ProblemInputs& in, DeviceTensors& d, cudaStream_t stream) {
  upload(in.x, d.x, stream);
  upload(in.weight, d.weight, stream);
  upload(in.bias, d.bias, stream);
  d.x_print = device_fingerprint(d.x.as<float>(), in.x.size, stream);
  d.weight_print = device_fingerprint(d.weight.as<float>(), in.weight.size, stream);
  d.bias_print = device_fingerprint(d.bias.as<float>(), in.bias.size, stream);
}

bool inputs_unchanged(const ProblemInputs& in, const DeviceTensors& d, cudaStream_t stream) {
  return device_fingerprint(d.x.as<float>(), in.x.size, stream) == d.x_print &&
         device_fingerprint(d.weight.as<float>(), in.weight.size, stream) == d.weight_print &&
         device_fingerprint(d.bias.as<float>(), in.bias.size, stream) == d.bias_print;
}

KernelArgs kernel_args(const DeviceTensors& d, cudaStream_t stream) {
  KernelArgs args;
  args.x = d.x.as<float>();
  args.weight = d.weight.as<float>();
  args.bias = d.bias.as<float>();
  args.y = d.y.as<float>();
  args.workspace = d.workspace.get();
  args.stream = stream;
  return args;
}

// A failure inside a running kernel leaves the CUDA context unusable: record it on the kernel
// and stop the whole run.
[[noreturn]] void abort_run(KernelResult& kernel, cudaError_t error) {
  kernel.status = KernelStatus::error;
  kernel.reason = "failed while running: " + cuda_error_text(error);
  throw RuntimeError("kernel " + kernel.id + " " + kernel.reason +
                     "; the CUDA context is unusable, run aborted");
}

// Runs the kernel once into a NaN-filled y and copies y back. False if the launch was refused.
bool run_once(const KernelPlan& plan, const ProblemShape& shape, const DeviceContext& device,
              const DeviceTensors& d, KernelResult& kernel, HostTensor& y_host) {
  const cudaStream_t stream = device.stream;
  NORMBENCH_CUDA_CHECK(fill_with_nan(d.y.as<float>(), shape.num_elements, stream));
  const cudaError_t launch_error = plan.launch(kernel_args(d, stream));
  if (launch_error != cudaSuccess) {
    cudaGetLastError();
    kernel.status = KernelStatus::error;
    kernel.reason = "launch failed: " + cuda_error_text(launch_error);
    return false;
  }
  if (const cudaError_t error = cudaStreamSynchronize(stream); error != cudaSuccess)
    abort_run(kernel, error);
  NORMBENCH_CUDA_CHECK(
      cudaMemcpyAsync(y_host.begin(), d.y.get(), y_host.bytes(), cudaMemcpyDeviceToHost, stream));
  NORMBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return true;
}

std::string failure_summary(const VerificationResult& r, const Tolerance& tol, int trial) {
  if (!r.inputs_unchanged) return fmt::format("trial {}: the kernel modified its inputs", trial);
  return fmt::format("trial {}: {} of {} elements outside |y - ref| <= {} + {} * |ref|{}", trial,
                     r.violations, r.checked, tol.atol, tol.rtol,
                     r.nonfinite > 0 ? fmt::format(" ({} NaN/Inf)", r.nonfinite) : "");
}

void verify_trial(const ProblemConfig& problem, const std::vector<KernelPlan>& plans, int trial,
                  uint64_t seed, const ProblemInputs& inputs, DeviceTensors& d, HostTensor& y_host,
                  const RunContext& ctx, ProblemResult& result) {
  const int threads = ctx.settings.threads;
  ctx.progress.update(fmt::format("{}: trial {}: reference", problem.id, trial));
  const NormalizationReference reference(problem.shape, inputs.x.begin(), inputs.weight.begin(),
                                         inputs.bias.begin(), threads);
  const std::string dump_dir =
      ctx.settings.save_tensors_dir.empty()
          ? ""
          : trial_dump_dir(ctx.settings.save_tensors_dir, problem.id, trial);
  if (!dump_dir.empty()) {
    save_inputs(dump_dir, inputs);
    save_reference(dump_dir, reference, threads);
  }
  for (size_t k = 0; k < plans.size(); ++k) {
    KernelResult& kernel = result.kernels[k];
    if (kernel.status != KernelStatus::passed) continue;  // unsupported, or failed already
    ctx.progress.update(fmt::format("{}: trial {}: {}", problem.id, trial, kernel.id));
    if (!run_once(plans[k], problem.shape, ctx.device, d, kernel, y_host)) continue;
    TrialVerification tv{trial, seed,
                         verify_output(reference, y_host.begin(), problem.tolerance, threads)};
    tv.result.inputs_unchanged = inputs_unchanged(inputs, d, ctx.device.stream);
    if (!tv.result.inputs_unchanged) upload_inputs(inputs, d, ctx.device.stream);
    if (!tv.result.passed || !tv.result.inputs_unchanged) {
      kernel.status = KernelStatus::failed;
      kernel.reason = failure_summary(tv.result, problem.tolerance, trial);
    }
    kernel.trials.push_back(std::move(tv));
    if (!dump_dir.empty()) save_output(dump_dir, kernel.id, y_host);
  }
}

void time_kernels(const ProblemConfig& problem, const std::vector<KernelPlan>& plans,
                  const ProblemInputs& inputs, DeviceTensors& d, const RunContext& ctx,
                  ProblemResult& result) {
  const KernelArgs args = kernel_args(d, ctx.device.stream);
  for (size_t k = 0; k < plans.size(); ++k) {
    KernelResult& kernel = result.kernels[k];
    if (kernel.status != KernelStatus::passed) continue;  // a kernel that failed is not timed
    ctx.progress.update(fmt::format("{}: timing {}", problem.id, kernel.id));
    try {
      kernel.timing = time_launches([&] { return plans[k].launch(args); }, problem.timing,
                                    &ctx.evictor, ctx.device.stream);
    } catch (const KernelLaunchError& e) {
      kernel.status = KernelStatus::error;
      kernel.reason = std::string("while timing: ") + e.what();
      continue;
    }
    if (!inputs_unchanged(inputs, d, ctx.device.stream)) {
      kernel.status = KernelStatus::failed;
      kernel.reason = "modified its inputs while being timed";
      kernel.timing.reset();
      upload_inputs(inputs, d, ctx.device.stream);
    }
  }
}

void derive_metrics(const ProblemConfig& problem, const RunContext& ctx, ProblemResult& result) {
  const KernelResult* baseline = nullptr;
  for (const auto& k : result.kernels)
    if (k.is_baseline) baseline = &k;
  for (auto& k : result.kernels) {
    if (baseline) k.baseline_id = baseline->id;
    if (!k.timing) continue;
    const double seconds = k.timing->summary.median * 1e-3;
    k.bandwidth_gb_per_s = static_cast<double>(problem.shape.min_bytes()) / seconds / 1e9;
    if (ctx.copy_bandwidth)
      k.percent_of_copy = 100.0 * *k.bandwidth_gb_per_s / ctx.copy_bandwidth->gb_per_s;
    if (baseline && baseline->timing)
      k.speedup_vs_baseline = baseline->timing->summary.median / k.timing->summary.median;
  }
}

}  // namespace

void run_problem(const ProblemConfig& problem, const std::vector<const KernelVariant*>& kernels,
                 const RunContext& ctx, ProblemResult& result) {
  result.config = &problem;
  size_t workspace = 0;
  // Each kernel plans the problem once; the plan decides support, workspace and dispatch and
  // launches every trial and timed sample.
  std::vector<KernelPlan> plans;
  for (const KernelVariant* variant : kernels) {
    KernelResult kernel;
    kernel.id = variant->id;
    kernel.description = variant->description;
    kernel.is_baseline = variant->is_baseline;
    kernel.status = KernelStatus::passed;  // until a trial says otherwise
    plans.push_back(plan_kernel(*variant, problem.shape, ctx.device.caps));
    const KernelPlan& plan = plans.back();
    if (plan.unsupported) {
      kernel.status = KernelStatus::not_supported;
      kernel.reason = *plan.unsupported;
    } else {
      workspace = std::max(workspace, plan.workspace_bytes);
      kernel.dispatches_to = plan.dispatches_to;
    }
    result.kernels.push_back(std::move(kernel));
  }
  if (auto reason = resource_problem(problem.shape, workspace)) {
    result.skipped = true;
    result.reason = *reason;
    for (auto& k : result.kernels)
      if (k.status == KernelStatus::passed) {
        k.status = KernelStatus::skipped;
        k.reason = "problem skipped: " + *reason;
      }
    return;
  }

  const cudaStream_t stream = ctx.device.stream;
  const ProblemShape& shape = problem.shape;
  DeviceTensors d;
  d.x = DeviceBuffer(static_cast<size_t>(shape.num_elements) * sizeof(float));
  d.y = DeviceBuffer(d.x.bytes());
  if (shape.affine) {
    d.weight = DeviceBuffer(static_cast<size_t>(shape.param_size) * sizeof(float));
    d.bias = DeviceBuffer(d.weight.bytes());
  }
  d.workspace = DeviceBuffer(workspace);
  HostTensor y_host(shape.shape);
  ProblemInputs inputs;

  const int trials = ctx.settings.trials_override.value_or(problem.trials);
  const uint64_t base_seed = ctx.settings.seed_override.value_or(problem.seed);
  for (int trial = 0; trial < trials; ++trial) {
    const uint64_t seed = base_seed + static_cast<uint64_t>(trial);  // fresh inputs each trial
    ctx.progress.update(fmt::format("{}: trial {}: inputs", problem.id, trial));
    fill_inputs(problem, seed, inputs, ctx.settings.threads);
    upload_inputs(inputs, d, stream);
    verify_trial(problem, plans, trial, seed, inputs, d, y_host, ctx, result);
  }
  if (ctx.settings.timing) time_kernels(problem, plans, inputs, d, ctx, result);
  derive_metrics(problem, ctx, result);
}

}  // namespace normbench
