// In the device worker: one problem's device tensors and the checked launches of its kernels.
// Every launch the harness makes (verification, determinism, each timed sample) goes into
// poisoned outputs with armed guards, and is followed by the checks: the device drained after
// the stream (escaped work), the guards of every output (kernels/tensor_roles.hpp) and of the
// workspace, the fingerprints of every input. Tensors are bytes here, in the problem's device
// format; the harness encodes and decodes them (app/inputs/tensor_encoding.hpp).
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/device/cuda_event.hpp"
#include "app/device/device_buffer.hpp"
#include "app/device/device_context.hpp"
#include "app/device/guarded_buffer.hpp"
#include "app/timing/gpu_conditions.hpp"
#include "app/timing/kernel_timer.hpp"
#include "app/worker/shared_tensors.hpp"
#include "app/worker/worker_protocol.hpp"
#include "kernels/registry.hpp"

namespace normbench {

class ProblemSession {
 public:
  // Plans every kernel but the excluded ones (whose planning crashed an earlier worker),
  // calling `planning(k)` before kernel k's plan; `shared` is the memory the harness fills
  // with the inputs.
  // `conditions` reads the GPU's clocks and throttling around timings; null: unavailable.
  ProblemSession(const DeviceContext& device, const GpuConditions* conditions,
                 const ProblemConfig& problem, const std::vector<const KernelVariant*>& kernels,
                 char* shared, const std::vector<size_t>& excluded,
                 const std::function<void(size_t)>& planning);
  const std::vector<KernelPlan>& plans() const { return plans_; }

  // Why the problem does not fit in the GPU's free memory, if it does not; else allocates.
  std::optional<std::string> allocate();
  // Copies the inputs from shared memory and fingerprints them; with `fresh`, the fresh inputs
  // too (app/worker/shared_tensors.hpp), which timed samples may swap in.
  void upload(bool fresh);
  // One checked launch of kernel `k`; its output goes to the output slot if `save_output`.
  LaunchReport launch(size_t k, bool save_output);
  // Times kernel `k` with the checks of every sample; `progress` is called after each one.
  TimingReport time(const TimingRequest& request, const L2Evictor& evictor,
                    const std::function<void(size_t)>& progress);

 private:
  KernelArgs args() const;
  cudaError_t poison() const;                         // NaN into the outputs
  cudaError_t poison_and_arm() const;                 // and the guards armed
  cudaError_t check_guards() const;                   // enqueues the guards' checks
  std::vector<const GuardedBuffer*> guarded() const;  // the outputs and the workspace
  bool inputs_unchanged();  // restores the inputs (and the fresh ones) if they changed
  cudaError_t swap_fresh_inputs() const;  // exchanges the inputs with the fresh ones
  uint64_t fingerprint(const void* data, size_t bytes) const;
  uint64_t inputs_fingerprint() const;
  uint64_t fresh_inputs_fingerprint() const;
  uint64_t outputs_fingerprint() const;
  // The outputs' tolerance bounds on the device, from their shared slots.
  struct BoundsOnDevice {
    bool uploaded = false;
    std::array<DeviceBuffer, kOutputCount> lower, upper;
  };
  // Uploads them; none where they do not fit in device memory.
  BoundsOnDevice upload_bounds() const;
  // The outputs against them: the first output with elements outside goes into `r`.
  void check_bounds(const BoundsOnDevice& bounds, int64_t sample, TimingReport& r) const;
  // Copies the outputs to the shared slots of a launch (layout_.outputs) or of a sample.
  void copy_outputs_to(const std::array<SharedSlot, kOutputCount>& slots) const;
  std::vector<OutputGuard> output_guards() const;  // the damage to each output's guards
  const DeviceBuffer& input(Input i) const { return inputs_[static_cast<size_t>(i)]; }
  const GuardedBuffer& output(Output o) const { return outputs_[static_cast<size_t>(o)]; }
  // The activity trace's records since the last account (the device drained), launched by
  // kernel `k`: the first escape found goes to `escape` if that is still empty, operations
  // another kernel left behind to `strays`; returns the last launch's account.
  std::optional<LaunchAccount> account(size_t k, std::string& escape, std::string& strays,
                                       const std::string& context);

  const DeviceContext& device_;
  const GpuConditions* conditions_;
  const ProblemConfig& problem_;
  std::vector<KernelPlan> plans_;
  char* shared_;
  SharedLayout layout_;
  std::vector<Input> input_roles_;                        // the problem's inputs
  std::vector<Output> output_roles_;                      // and outputs
  std::array<DeviceBuffer, kInputCount> inputs_, fresh_;  // empty where the problem has none
  DeviceBuffer scratch_;
  bool has_fresh_ = false;
  uint64_t fresh_print_ = 0;
  std::array<GuardedBuffer, kOutputCount> outputs_;
  GuardedBuffer workspace_;
  uint64_t inputs_print_ = 0;
  CudaEvent launch_start_, launch_stop_;  // around checked launches (the timer has its own)
  std::optional<size_t> last_kernel_;     // whose launch the trace saw last
};

}  // namespace normbench
