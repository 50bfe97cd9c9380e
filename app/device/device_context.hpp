// The GPU a run uses: its description for the report, its capabilities for the kernels, and
// the stream everything is enqueued on.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>

#include "app/check/activity_accounting.hpp"
#include "app/device/device_info.hpp"
#include "kernels/registry.hpp"

namespace normbench {

struct DeviceContext {
  DeviceInfo info;
  DeviceCaps caps;
  cudaStream_t stream = nullptr;
  TracedStreams traced;  // CUPTI's ids of `stream` and the default streams, when traced

  DeviceContext() = default;
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;
  ~DeviceContext();
};

// Starts the activity trace (app/device/activity_trace.hpp; info.untraced says why not) and
// selects device `index`. Throws RuntimeError (exit 3) if there is no usable GPU, UsageError
// (exit 2) if `index` names no device.
std::unique_ptr<DeviceContext> open_device(int index);

// Free device memory now, in bytes.
size_t free_device_memory();

}  // namespace normbench
