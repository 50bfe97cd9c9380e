#include "app/worker/problem_session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "app/device/activity_trace.hpp"
#include "app/device/cuda_check.hpp"
#include "app/device/device_checks.hpp"

namespace normbench {

namespace {
std::string gigabytes(double bytes) {
  return fmt::format("{:.2f} GB", bytes / 1e9);
}

void upload_slot(const char* shared, const SharedSlot& slot, const DeviceBuffer& device,
                 cudaStream_t stream) {
  if (slot.bytes == 0) return;
  NORMBENCH_CUDA_CHECK(cudaMemcpyAsync(device.get(), shared + slot.offset, slot.bytes,
                                       cudaMemcpyHostToDevice, stream));
}

// A refused launch leaves a non-sticky error to clear; a sticky one (a fault inside the
// kernel's launch code) leaves the context unusable: that is thrown, as any failed CUDA call.
std::string refused_launch(cudaError_t error) {
  cudaGetLastError();
  NORMBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  return "launch failed: " + cuda_error_text(error);
}

// One hash of several: equal parts, equal hash; any part differing changes it.
uint64_t combine(uint64_t a, uint64_t b) {
  return a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
}
}  // namespace

ProblemSession::ProblemSession(const DeviceContext& device, const GpuConditions* conditions,
                               const ProblemConfig& problem,
                               const std::vector<const KernelVariant*>& kernels, char* shared,
                               const std::vector<size_t>& excluded,
                               const std::function<void(size_t)>& planning)
    : device_(device),
      conditions_(conditions),
      problem_(problem),
      shared_(shared),
      layout_(shared_layout(problem.shape)),
      input_roles_(problem_inputs(problem.shape)),
      output_roles_(problem_outputs(problem.shape)) {
  for (size_t k = 0; k < kernels.size(); ++k) {
    if (std::find(excluded.begin(), excluded.end(), k) != excluded.end()) {
      plans_.push_back(KernelPlan::declined("its planning crashed a worker"));
      continue;
    }
    planning(k);
    plans_.push_back(plan_kernel(*kernels[k], problem.shape, device.caps));
  }
}

std::optional<std::string> ProblemSession::allocate() {
  size_t workspace = 0;
  for (const KernelPlan& plan : plans_)
    if (!plan.unsupported && !plan.error) workspace = std::max(workspace, plan.workspace_bytes);
  const SharedLayout& l = layout_;
  // The inputs twice: the fresh inputs wait beside them.
  double tensors = 0.0;
  for (Input i : input_roles_) tensors += 2.0 * static_cast<double>(l.input(i).bytes);
  for (Output o : output_roles_) tensors += static_cast<double>(l.output(o).bytes);
  const double guards =
      2.0 * static_cast<double>((output_roles_.size() + 1) * GuardedBuffer::kGuardBytes);
  const double needed = tensors + static_cast<double>(workspace) + guards + 256e6;
  const auto free = static_cast<double>(free_device_memory());
  if (needed > free)
    return "does not fit in GPU memory: needs " + gigabytes(needed) + ", " + gigabytes(free) +
           " free";
  for (Input i : input_roles_) {
    inputs_[static_cast<size_t>(i)] = DeviceBuffer(l.input(i).bytes);
    fresh_[static_cast<size_t>(i)] = DeviceBuffer(l.fresh_input(i).bytes);
  }
  // An output the problem does not have stays an empty GuardedBuffer, with no guards to check.
  for (Output o : output_roles_)
    outputs_[static_cast<size_t>(o)] = GuardedBuffer(l.output(o).bytes);
  workspace_ = GuardedBuffer(workspace);
  scratch_ = DeviceBuffer(2 * sizeof(unsigned long long));  // fingerprints, bounds checks
  return std::nullopt;
}

uint64_t ProblemSession::fingerprint(const void* data, size_t bytes) const {
  return device_fingerprint(data, bytes, scratch_.as<unsigned long long>(), device_.stream);
}

uint64_t ProblemSession::inputs_fingerprint() const {
  uint64_t print = 0;
  for (Input i : input_roles_)
    print = combine(print, fingerprint(input(i).get(), input(i).bytes()));
  return print;
}

uint64_t ProblemSession::fresh_inputs_fingerprint() const {
  uint64_t print = 0;
  for (Input i : input_roles_) {
    const DeviceBuffer& b = fresh_[static_cast<size_t>(i)];
    print = combine(print, fingerprint(b.get(), b.bytes()));
  }
  return print;
}

cudaError_t ProblemSession::swap_fresh_inputs() const {
  for (Input i : input_roles_)
    if (cudaError_t e = swap_contents(input(i).get(), fresh_[static_cast<size_t>(i)].get(),
                                      input(i).bytes(), device_.stream);
        e != cudaSuccess)
      return e;
  return cudaSuccess;
}

uint64_t ProblemSession::outputs_fingerprint() const {
  uint64_t print = 0;
  for (Output o : output_roles_)
    print = combine(print, fingerprint(output(o).get(), output(o).bytes()));
  return print;
}

void ProblemSession::upload(bool fresh) {
  const cudaStream_t stream = device_.stream;
  for (Input i : input_roles_) upload_slot(shared_, layout_.input(i), input(i), stream);
  inputs_print_ = inputs_fingerprint();
  has_fresh_ = fresh;
  if (!fresh) return;
  for (Input i : input_roles_)
    upload_slot(shared_, layout_.fresh_input(i), fresh_[static_cast<size_t>(i)], stream);
  fresh_print_ = fresh_inputs_fingerprint();
}

bool ProblemSession::inputs_unchanged() {
  const bool same = inputs_fingerprint() == inputs_print_ &&
                    (!has_fresh_ || fresh_inputs_fingerprint() == fresh_print_);
  if (!same) upload(has_fresh_);  // the next kernel gets them intact
  return same;
}

KernelArgs ProblemSession::args() const {
  // An empty buffer's pointer is null: the tensors the problem lacks are null, as promised.
  KernelArgs a;
  a.x = input(Input::x).get();
  a.residual = input(Input::residual).get();
  a.weight = input(Input::weight).get();
  a.bias = input(Input::bias).get();
  a.dy = input(Input::dy).get();
  a.ds_out = input(Input::ds_out).get();
  a.mean = input(Input::mean).get();
  a.rstd = input(Input::rstd).get();
  a.y = problem_.shape.is_backward() ? output(Output::dx).get() : output(Output::y).get();
  a.sum = output(Output::sum).get();
  a.grad_weight = output(Output::grad_weight).get();
  a.grad_bias = output(Output::grad_bias).get();
  a.workspace = workspace_.get();
  a.stream = device_.stream;
  return a;
}

cudaError_t ProblemSession::poison() const {
  for (Output o : output_roles_)
    if (cudaError_t e = fill_with_nan(output(o).get(), output(o).bytes(), device_.stream);
        e != cudaSuccess)
      return e;
  return cudaSuccess;
}

std::vector<const GuardedBuffer*> ProblemSession::guarded() const {
  std::vector<const GuardedBuffer*> buffers;
  for (Output o : output_roles_) buffers.push_back(&output(o));
  buffers.push_back(&workspace_);
  return buffers;
}

cudaError_t ProblemSession::poison_and_arm() const {
  if (cudaError_t e = poison(); e != cudaSuccess) return e;
  for (const GuardedBuffer* b : guarded())
    if (cudaError_t e = b->arm(device_.stream); e != cudaSuccess) return e;
  return cudaSuccess;
}

cudaError_t ProblemSession::check_guards() const {
  for (const GuardedBuffer* b : guarded())
    if (cudaError_t e = b->check(device_.stream); e != cudaSuccess) return e;
  return cudaSuccess;
}

std::vector<OutputGuard> ProblemSession::output_guards() const {
  std::vector<OutputGuard> guards;
  for (Output o : output_roles_)
    guards.push_back({output_name(o), output(o).damage(device_.stream)});
  return guards;
}

void ProblemSession::copy_outputs_to(const std::array<SharedSlot, kOutputCount>& slots) const {
  for (Output o : output_roles_) {
    const SharedSlot& slot = slots[static_cast<size_t>(o)];
    NORMBENCH_CUDA_CHECK(cudaMemcpyAsync(shared_ + slot.offset, output(o).get(), slot.bytes,
                                         cudaMemcpyDeviceToHost, device_.stream));
  }
  NORMBENCH_CUDA_CHECK(cudaStreamSynchronize(device_.stream));
}

std::optional<LaunchAccount> ProblemSession::account(size_t k, std::string& escape,
                                                     std::string& strays,
                                                     const std::string& context) {
  if (!activity_trace::available()) return std::nullopt;
  Accounting a = account_launches(activity_trace::collect(), device_.traced, last_kernel_ == k);
  last_kernel_ = k;
  if (a.escape && escape.empty()) escape = context + *a.escape;
  if (a.strays && strays.empty()) strays = *a.strays;
  if (a.launches.empty()) return std::nullopt;
  return std::move(a.launches.back());
}

LaunchReport ProblemSession::launch(size_t k, bool save_output) {
  const cudaStream_t stream = device_.stream;
  LaunchReport r;
  NORMBENCH_CUDA_CHECK(poison_and_arm());
  NORMBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  const KernelPlan& plan = plans_.at(k);
  const KernelArgs a = args();
  auto refused = [&](std::string why) {
    r.launch_error = std::move(why);
    std::string ignored;
    account(k, ignored, ignored, "");  // the refused launch's records go with it
    return r;
  };
  try {
    cudaError_t error =
        traced_launch([&] { return plan.launch(a); }, activity_trace::next_launch_serial(), stream,
                      launch_start_.get(), launch_stop_.get());
    if (error == cudaSuccess && plan.finish) error = plan.finish(a);
    if (error != cudaSuccess) return refused(refused_launch(error));
  } catch (const KernelLaunchError& e) {
    cudaGetLastError();
    NORMBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    return refused(e.what());
  }
  r.escaped_us = drain_after(stream);
  NORMBENCH_CUDA_CHECK(check_guards());
  r.output_guards = output_guards();
  r.workspace_guard = workspace_.damage(stream);
  r.output_fingerprint = outputs_fingerprint();
  if (save_output) copy_outputs_to(layout_.outputs);
  r.inputs_unchanged = inputs_unchanged();
  // Accounted last, after the checks above, so that work a thread of the kernel enqueues
  // shortly after its call returned is in this launch's records.
  NORMBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  if (auto launch = account(k, r.activity_escape, r.activity_strays, ""))
    r.operations = summarize_operations(*launch, device_.traced);
  return r;
}

ProblemSession::BoundsOnDevice ProblemSession::upload_bounds() const {
  BoundsOnDevice b;
  size_t bytes = 0;
  for (Output o : output_roles_)
    bytes += layout_.lower_bound(o).bytes + layout_.upper_bound(o).bytes;
  size_t free = 0, total = 0;
  NORMBENCH_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  constexpr size_t kMargin = size_t{256} << 20;  // for the allocator's own needs
  if (bytes + kMargin > free) return b;
  for (Output o : output_roles_) {
    const auto i = static_cast<size_t>(o);
    b.lower[i] = DeviceBuffer(layout_.lower_bound(o).bytes);
    b.upper[i] = DeviceBuffer(layout_.upper_bound(o).bytes);
    upload_slot(shared_, layout_.lower_bound(o), b.lower[i], device_.stream);
    upload_slot(shared_, layout_.upper_bound(o), b.upper[i], device_.stream);
  }
  NORMBENCH_CUDA_CHECK(cudaStreamSynchronize(device_.stream));
  b.uploaded = true;
  return b;
}

void ProblemSession::check_bounds(const BoundsOnDevice& bounds, int64_t sample,
                                  TimingReport& r) const {
  for (Output o : output_roles_) {
    const auto i = static_cast<size_t>(o);
    const BoundsCheck c =
        device_bounds_check(output(o).get(), tensor_dtype(problem_.shape, tensor_kind(o)),
                            bounds.lower[i].as<float>(), bounds.upper[i].as<float>(),
                            static_cast<size_t>(tensor_elements(problem_.shape, tensor_kind(o))),
                            scratch_.as<unsigned long long>(), device_.stream);
    if (c.outside == 0) continue;
    r.bounds_mismatch = sample;
    r.bounds_output = output_name(o);
    r.bounds_outside = c.outside;
    r.bounds_first = c.first;
    return;
  }
}

TimingReport ProblemSession::time(const TimingRequest& request, const L2Evictor& evictor,
                                  const std::function<void(size_t)>& progress) {
  const cudaStream_t stream = device_.stream;
  TimingReport r;
  const KernelPlan& plan = plans_.at(request.kernel);
  const KernelArgs a = args();
  NORMBENCH_CUDA_CHECK(poison_and_arm());
  SampleHooks hooks;
  // Which samples run on the fresh inputs, swapped in at the same addresses outside the timed
  // region: a launch that replays an output it stored for these addresses is caught there.
  std::mt19937_64 pick(request.fresh_seed);
  auto is_fresh = [&](size_t sample) {
    const auto s = static_cast<int64_t>(sample);
    if (!has_fresh_ || request.fresh_sample < 0 || s < request.fresh_sample) return false;
    if (s == request.fresh_sample) return true;
    return request.fresh_seed != 0 && pick() % kFreshEvery == 0;
  };
  bool fresh = false;  // the sample at hand runs on the fresh inputs
  // Every sample starts from poisoned outputs: a launch that skips its work cannot leave the
  // previous sample's output behind, and no launch can tell the checked ones from the others.
  hooks.before = [&](size_t sample) {
    fresh = is_fresh(sample);
    if (fresh)
      if (const cudaError_t e = swap_fresh_inputs(); e != cudaSuccess) return e;
    return poison();
  };
  // A kernel that is not bitwise deterministic: every sample on the last trial's inputs
  // against the tolerance bounds, on the device (where they fit).
  BoundsOnDevice bounds;
  if (request.check_bounds) bounds = upload_bounds();
  if (plan.finish) hooks.after_launch = [&] { return plan.finish(a); };
  hooks.hold_us = plan.hold_us;
  const size_t k = request.kernel;
  hooks.after_warmup = [&] {
    drain_after(stream);
    account(k, r.activity_escape, r.activity_strays, "warm-up launch: ");
  };
  // The GPU's state around the samples, and after each sample whether it throttled.
  SamplingConditions conditions;
  const GpuConditions* gpu = conditions_;
  if (gpu) conditions.before = gpu->read();
  hooks.after = [&](size_t sample) {
    if (gpu) conditions.sample_reasons.push_back(gpu->clock_event_reasons().value_or(0));
    if (auto launch = account(k, r.activity_escape, r.activity_strays,
                              fmt::format("timed sample {}: ", sample))) {
      r.device_busy_us.push_back(launch->busy_us);
      r.operations = summarize_operations(*launch, device_.traced);
    }
    NORMBENCH_CUDA_CHECK(check_guards());
    const auto s = static_cast<int64_t>(sample);
    r.fresh_samples += fresh;
    if (request.deterministic) {
      ++r.outputs_compared;
      const uint64_t print = outputs_fingerprint();
      if (fresh && print != request.fresh_fingerprint && r.fresh_mismatch < 0) {
        r.fresh_mismatch = s;
        r.fresh_mismatch_replays = print == request.verified_fingerprint;
      }
      if (!fresh && print != request.verified_fingerprint && r.first_mismatch < 0)
        r.first_mismatch = s;
    } else if (s == request.saved_sample) {
      copy_outputs_to(layout_.samples);
      r.saved_sample = request.saved_sample;
    }
    if (bounds.uploaded && !fresh) {
      ++r.bounds_checked;
      if (r.bounds_mismatch < 0) check_bounds(bounds, s, r);
    }
    if (fresh) NORMBENCH_CUDA_CHECK(swap_fresh_inputs());
    fresh = false;
    progress(sample);
  };
  try {
    r.timing =
        time_launches([&] { return plan.launch(a); }, problem_.timing, &evictor, stream, hooks);
  } catch (const KernelLaunchError& e) {
    cudaGetLastError();
    NORMBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    r.launch_error = e.what();
    if (fresh) NORMBENCH_CUDA_CHECK(swap_fresh_inputs());  // the next kernel's inputs as they were
    std::string ignored;
    account(k, ignored, ignored, "");  // the refused launch's records go with it
    return r;
  }
  if (gpu) {
    conditions.after = gpu->read();
    r.timing.conditions = conditions;
  }
  // The last sample's outputs, in the launch slots.
  if (!request.deterministic) copy_outputs_to(layout_.outputs);
  r.output_guards = output_guards();
  r.workspace_guard = workspace_.damage(stream);
  r.inputs_unchanged = inputs_unchanged();
  // What the last sample's launch call left behind for later.
  NORMBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  account(k, r.activity_escape, r.activity_strays, "after the last timed sample: ");
  return r;
}

}  // namespace normbench
