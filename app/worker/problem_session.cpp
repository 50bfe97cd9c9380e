#include "app/worker/problem_session.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "app/device/cuda_check.hpp"
#include "app/device/device_checks.hpp"

namespace normbench {

namespace {
std::string gigabytes(double bytes) {
  return fmt::format("{:.2f} GB", bytes / 1e9);
}

void upload_tensor(const HostTensor& host, const DeviceBuffer& device, cudaStream_t stream) {
  if (host.size == 0) return;
  NORMBENCH_CUDA_CHECK(
      cudaMemcpyAsync(device.get(), host.begin(), host.bytes(), cudaMemcpyHostToDevice, stream));
}

// A refused launch leaves a non-sticky error to clear; a sticky one (a fault inside the
// kernel's launch code) leaves the context unusable: that is thrown, as any failed CUDA call.
std::string refused_launch(cudaError_t error) {
  cudaGetLastError();
  NORMBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  return "launch failed: " + cuda_error_text(error);
}
}  // namespace

ProblemSession::ProblemSession(const DeviceContext& device, const ProblemConfig& problem,
                               const std::vector<const KernelVariant*>& kernels, char* shared,
                               const std::vector<size_t>& excluded,
                               const std::function<void(size_t)>& planning)
    : device_(device), problem_(problem), shared_(shared_tensors(problem.shape, shared)) {
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
  const ProblemShape& shape = problem_.shape;
  size_t workspace = 0;
  for (const KernelPlan& plan : plans_)
    if (!plan.unsupported) workspace = std::max(workspace, plan.workspace_bytes);
  const double x_bytes = static_cast<double>(shape.num_elements) * sizeof(float);
  const double params = 2.0 * static_cast<double>(shared_.inputs.weight.bytes());
  const double guards = 4.0 * static_cast<double>(GuardedBuffer::kGuardBytes);
  const double needed = 2 * x_bytes + params + static_cast<double>(workspace) + guards + 256e6;
  const auto free = static_cast<double>(free_device_memory());
  if (needed > free)
    return "does not fit in GPU memory: needs " + gigabytes(needed) + ", " + gigabytes(free) +
           " free";
  x_ = DeviceBuffer(shared_.inputs.x.bytes());
  weight_ = DeviceBuffer(shared_.inputs.weight.bytes());
  bias_ = DeviceBuffer(shared_.inputs.bias.bytes());
  y_ = GuardedBuffer(shared_.inputs.x.bytes());
  workspace_ = GuardedBuffer(workspace);
  scratch_ = DeviceBuffer(sizeof(unsigned long long));
  return std::nullopt;
}

uint64_t ProblemSession::fingerprint(const void* data, size_t bytes) const {
  return device_fingerprint(data, static_cast<int64_t>(bytes / 4),
                            scratch_.as<unsigned long long>(), device_.stream);
}

void ProblemSession::upload() {
  const cudaStream_t stream = device_.stream;
  upload_tensor(shared_.inputs.x, x_, stream);
  upload_tensor(shared_.inputs.weight, weight_, stream);
  upload_tensor(shared_.inputs.bias, bias_, stream);
  x_print_ = fingerprint(x_.get(), x_.bytes());
  weight_print_ = fingerprint(weight_.get(), weight_.bytes());
  bias_print_ = fingerprint(bias_.get(), bias_.bytes());
}

bool ProblemSession::inputs_unchanged() {
  const bool same = fingerprint(x_.get(), x_.bytes()) == x_print_ &&
                    fingerprint(weight_.get(), weight_.bytes()) == weight_print_ &&
                    fingerprint(bias_.get(), bias_.bytes()) == bias_print_;
  if (!same) upload();  // the next kernel gets them intact
  return same;
}

KernelArgs ProblemSession::args() const {
  KernelArgs a;
  a.x = x_.get();
  a.weight = problem_.shape.affine ? weight_.get() : nullptr;
  a.bias = problem_.shape.affine ? bias_.get() : nullptr;
  a.y = y_.get();
  a.workspace = workspace_.get();
  a.stream = device_.stream;
  return a;
}

cudaError_t ProblemSession::poison_and_arm() const {
  if (cudaError_t e = fill_with_nan(y_.as<float>(), problem_.shape.num_elements, device_.stream);
      e != cudaSuccess)
    return e;
  if (cudaError_t e = y_.arm(device_.stream); e != cudaSuccess) return e;
  return workspace_.arm(device_.stream);
}

void ProblemSession::copy_output_to(HostTensor& slot) const {
  NORMBENCH_CUDA_CHECK(cudaMemcpyAsync(slot.begin(), y_.get(), slot.bytes(), cudaMemcpyDeviceToHost,
                                       device_.stream));
  NORMBENCH_CUDA_CHECK(cudaStreamSynchronize(device_.stream));
}

LaunchReport ProblemSession::launch(size_t k, bool save_output) {
  const cudaStream_t stream = device_.stream;
  LaunchReport r;
  NORMBENCH_CUDA_CHECK(poison_and_arm());
  NORMBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (const cudaError_t error = plans_.at(k).launch(args()); error != cudaSuccess) {
    r.launch_error = refused_launch(error);
    return r;
  }
  r.escaped_us = drain_after(stream);
  NORMBENCH_CUDA_CHECK(y_.check(stream));
  NORMBENCH_CUDA_CHECK(workspace_.check(stream));
  r.output_guard = y_.damage(stream);
  r.workspace_guard = workspace_.damage(stream);
  r.output_fingerprint = fingerprint(y_.get(), y_.bytes());
  if (save_output) copy_output_to(shared_.output);
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
  // Every sample starts from a poisoned output: a launch that skips its work cannot leave the
  // previous sample's output behind, and no launch can tell the checked ones from the others.
  hooks.before = [&] { return fill_with_nan(y_.as<float>(), problem_.shape.num_elements, stream); };
  hooks.after = [&](size_t sample) {
    NORMBENCH_CUDA_CHECK(y_.check(stream));
    NORMBENCH_CUDA_CHECK(workspace_.check(stream));
    if (request.deterministic) {
      ++r.outputs_compared;
      if (fingerprint(y_.get(), y_.bytes()) != request.verified_fingerprint && r.first_mismatch < 0)
        r.first_mismatch = static_cast<int64_t>(sample);
    } else if (static_cast<int64_t>(sample) == request.saved_sample) {
      copy_output_to(shared_.sample);
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
    return r;
  }
  if (!request.deterministic) copy_output_to(shared_.output);  // the last sample's output
  r.output_guard = y_.damage(stream);
  r.workspace_guard = workspace_.damage(stream);
  r.inputs_unchanged = inputs_unchanged();
  return r;
}

}  // namespace normbench
