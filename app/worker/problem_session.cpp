#include "app/worker/problem_session.hpp"

#include <fmt/format.h>

#include <algorithm>

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

ProblemSession::ProblemSession(const DeviceContext& device, const ProblemConfig& problem,
                               const std::vector<const KernelVariant*>& kernels, char* shared,
                               const std::vector<size_t>& excluded,
                               const std::function<void(size_t)>& planning)
    : device_(device), problem_(problem), shared_(shared), layout_(shared_layout(problem.shape)) {
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
    if (!plan.unsupported) workspace = std::max(workspace, plan.workspace_bytes);
  const SharedLayout& l = layout_;
  const double tensors = static_cast<double>(l.x.bytes + l.residual.bytes + l.weight.bytes +
                                             l.bias.bytes + l.y.bytes + l.sum.bytes);
  const double guards = 6.0 * static_cast<double>(GuardedBuffer::kGuardBytes);
  const double needed = tensors + static_cast<double>(workspace) + guards + 256e6;
  const auto free = static_cast<double>(free_device_memory());
  if (needed > free)
    return "does not fit in GPU memory: needs " + gigabytes(needed) + ", " + gigabytes(free) +
           " free";
  x_ = DeviceBuffer(l.x.bytes);
  residual_ = DeviceBuffer(l.residual.bytes);
  weight_ = DeviceBuffer(l.weight.bytes);
  bias_ = DeviceBuffer(l.bias.bytes);
  y_ = GuardedBuffer(l.y.bytes);
  // Only add_rms_norm has a second output; an empty GuardedBuffer has no guards to check.
  if (problem_.shape.has_residual()) sum_ = GuardedBuffer(l.sum.bytes);
  workspace_ = GuardedBuffer(workspace);
  scratch_ = DeviceBuffer(sizeof(unsigned long long));
  return std::nullopt;
}

uint64_t ProblemSession::fingerprint(const void* data, size_t bytes) const {
  return device_fingerprint(data, bytes, scratch_.as<unsigned long long>(), device_.stream);
}

uint64_t ProblemSession::inputs_fingerprint() const {
  uint64_t print = fingerprint(x_.get(), x_.bytes());
  for (const DeviceBuffer* b : {&residual_, &weight_, &bias_})
    print = combine(print, fingerprint(b->get(), b->bytes()));
  return print;
}

uint64_t ProblemSession::outputs_fingerprint() const {
  return combine(fingerprint(y_.get(), y_.bytes()), fingerprint(sum_.get(), sum_.bytes()));
}

void ProblemSession::upload() {
  const cudaStream_t stream = device_.stream;
  upload_slot(shared_, layout_.x, x_, stream);
  upload_slot(shared_, layout_.residual, residual_, stream);
  upload_slot(shared_, layout_.weight, weight_, stream);
  upload_slot(shared_, layout_.bias, bias_, stream);
  inputs_print_ = inputs_fingerprint();
}

bool ProblemSession::inputs_unchanged() {
  const bool same = inputs_fingerprint() == inputs_print_;
  if (!same) upload();  // the next kernel gets them intact
  return same;
}

KernelArgs ProblemSession::args() const {
  const ProblemShape& p = problem_.shape;
  KernelArgs a;
  a.x = x_.get();
  a.residual = p.has_residual() ? residual_.get() : nullptr;
  a.weight = p.affine ? weight_.get() : nullptr;
  a.bias = p.has_bias ? bias_.get() : nullptr;
  a.y = y_.get();
  a.sum = p.has_residual() ? sum_.get() : nullptr;
  a.workspace = workspace_.get();
  a.stream = device_.stream;
  return a;
}

cudaError_t ProblemSession::poison() const {
  if (cudaError_t e = fill_with_nan(y_.get(), y_.bytes(), device_.stream); e != cudaSuccess)
    return e;
  return sum_.bytes() > 0 ? fill_with_nan(sum_.get(), sum_.bytes(), device_.stream) : cudaSuccess;
}

std::vector<const GuardedBuffer*> ProblemSession::guarded() const {
  if (problem_.shape.has_residual()) return {&y_, &sum_, &workspace_};
  return {&y_, &workspace_};
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

void ProblemSession::copy_outputs_to(const SharedSlot& y, const SharedSlot& sum) const {
  NORMBENCH_CUDA_CHECK(cudaMemcpyAsync(shared_ + y.offset, y_.get(), y.bytes,
                                       cudaMemcpyDeviceToHost, device_.stream));
  if (sum.bytes > 0)
    NORMBENCH_CUDA_CHECK(cudaMemcpyAsync(shared_ + sum.offset, sum_.get(), sum.bytes,
                                         cudaMemcpyDeviceToHost, device_.stream));
  NORMBENCH_CUDA_CHECK(cudaStreamSynchronize(device_.stream));
}

std::optional<LaunchAccount> ProblemSession::account(std::string& escape,
                                                     const std::string& context) const {
  if (!activity_trace::available()) return std::nullopt;
  Accounting a = account_launches(activity_trace::collect(), device_.traced);
  if (a.escape && escape.empty()) escape = context + *a.escape;
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
  if (const cudaError_t error =
          traced_launch([&] { return plan.launch(a); }, activity_trace::next_launch_serial(),
                        stream, launch_start_.get(), launch_stop_.get());
      error != cudaSuccess) {
    r.launch_error = refused_launch(error);
    std::string ignored;
    account(ignored, "");  // the refused launch's records go with it
    return r;
  }
  r.escaped_us = drain_after(stream);
  if (auto launch = account(r.activity_escape, ""))
    r.operations = summarize_operations(*launch, device_.traced);
  NORMBENCH_CUDA_CHECK(check_guards());
  r.output_guard = y_.damage(stream);
  r.sum_guard = sum_.damage(stream);
  r.workspace_guard = workspace_.damage(stream);
  r.output_fingerprint = outputs_fingerprint();
  if (save_output) copy_outputs_to(layout_.y, layout_.sum);
  r.inputs_unchanged = inputs_unchanged();
  return r;
}

TimingReport ProblemSession::time(const TimingRequest& request, const L2Evictor& evictor,
                                  const std::function<void(size_t)>& progress) {
  const cudaStream_t stream = device_.stream;
  TimingReport r;
  const KernelPlan& plan = plans_.at(request.kernel);
  const KernelArgs a = args();
  NORMBENCH_CUDA_CHECK(poison_and_arm());
  SampleHooks hooks;
  // Every sample starts from poisoned outputs: a launch that skips its work cannot leave the
  // previous sample's output behind, and no launch can tell the checked ones from the others.
  hooks.before = [&] { return poison(); };
  hooks.after_warmup = [&] {
    drain_after(stream);
    account(r.activity_escape, "warm-up launch: ");
  };
  hooks.after = [&](size_t sample) {
    if (auto launch = account(r.activity_escape, fmt::format("timed sample {}: ", sample))) {
      r.device_busy_us.push_back(launch->busy_us);
      r.operations = summarize_operations(*launch, device_.traced);
    }
    NORMBENCH_CUDA_CHECK(check_guards());
    if (request.deterministic) {
      ++r.outputs_compared;
      if (outputs_fingerprint() != request.verified_fingerprint && r.first_mismatch < 0)
        r.first_mismatch = static_cast<int64_t>(sample);
    } else if (static_cast<int64_t>(sample) == request.saved_sample) {
      copy_outputs_to(layout_.sample_y, layout_.sample_sum);
      r.saved_sample = request.saved_sample;
    }
    progress(sample);
  };
  try {
    r.timing =
        time_launches([&] { return plan.launch(a); }, problem_.timing, &evictor, stream, hooks);
  } catch (const KernelLaunchError& e) {
    cudaGetLastError();
    NORMBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    r.launch_error = e.what();
    std::string ignored;
    account(ignored, "");  // the refused launch's records go with it
    return r;
  }
  // The last sample's outputs, in the launch slots.
  if (!request.deterministic) copy_outputs_to(layout_.y, layout_.sum);
  r.output_guard = y_.damage(stream);
  r.sum_guard = sum_.damage(stream);
  r.workspace_guard = workspace_.damage(stream);
  r.inputs_unchanged = inputs_unchanged();
  return r;
}

}  // namespace normbench
