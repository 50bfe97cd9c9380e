#include "app/timing/copy_bandwidth.hpp"

#include <algorithm>

namespace normbench {

CopyBandwidth measure_copy_bandwidth(const DeviceContext& device, const L2Evictor& evictor) {
  const size_t bytes = std::min<size_t>(size_t{1} << 30, free_device_memory() / 4) & ~size_t{255};
  DeviceBuffer source(bytes), destination(bytes);
  NORMBENCH_CUDA_CHECK(cudaMemsetAsync(source.get(), 0x5a, bytes, device.stream));
  TimingSettings settings;
  settings.max_time_s = 2.0;
  CopyBandwidth result;
  result.bytes_moved = 2 * static_cast<uint64_t>(bytes);
  result.timing = time_launches(
      [&] {
        return cudaMemcpyAsync(destination.get(), source.get(), bytes, cudaMemcpyDeviceToDevice,
                               device.stream);
      },
      settings, &evictor, device.stream);
  result.gb_per_s = static_cast<double>(result.bytes_moved) / (result.timing.summary.median * 1e6);
  return result;
}

}  // namespace normbench
