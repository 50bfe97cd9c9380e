// The device's copy bandwidth, measured once per run: the ceiling that kernels' effective
// bandwidth is reported against.
#pragma once

#include "app/device/device_context.hpp"
#include "app/timing/kernel_timer.hpp"

namespace normbench {

// Times a device-to-device copy of up to 1 GiB (less if memory is short), counting bytes
// read plus written.
CopyBandwidth measure_copy_bandwidth(const DeviceContext& device, const L2Evictor& evictor);

}  // namespace normbench
