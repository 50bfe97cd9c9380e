#include "app/timing/latency_floor.hpp"

#include "app/device/cuda_check.hpp"

namespace normbench {

namespace {
constexpr int kLineBytes = 128;
constexpr int kLineVectors = kLatencyLines * kLineBytes / 16;  // one 16-byte vector a thread

__global__ void empty_kernel() {}

__global__ void copy_lines(const uint4* x, uint4* y) {
  if (threadIdx.x < kLineVectors) y[threadIdx.x] = x[threadIdx.x];
}

// Each median over at least this many samples: launches of a few microseconds are near the
// events' resolution, and a wide spread of them would move a median of ten.
TimingSettings floor_settings(bool flush_l2) {
  TimingSettings settings;
  settings.min_samples = 100;
  settings.max_time_s = 1.0;
  settings.flush_l2 = flush_l2;
  return settings;
}
}  // namespace

LatencyFloor measure_latency_floor(const DeviceContext& device, const L2Evictor& evictor) {
  static_assert(kLineVectors <= 32, "one warp copies the lines");
  const size_t bytes = kLatencyLines * kLineBytes;
  DeviceBuffer source(bytes), destination(bytes);
  NORMBENCH_CUDA_CHECK(cudaMemsetAsync(source.get(), 0x5a, bytes, device.stream));
  const auto empty = [&] {
    empty_kernel<<<1, 1, 0, device.stream>>>();
    return cudaGetLastError();
  };
  const auto lines = [&] {
    copy_lines<<<1, 32, 0, device.stream>>>(source.as<uint4>(), destination.as<uint4>());
    return cudaGetLastError();
  };
  LatencyFloor result;
  result.bytes_moved = 2 * static_cast<uint64_t>(bytes);
  result.empty_launch = time_launches(empty, floor_settings(true), &evictor, device.stream);
  result.cold = time_launches(lines, floor_settings(true), &evictor, device.stream);
  result.warm = time_launches(lines, floor_settings(false), &evictor, device.stream);
  return result;
}

}  // namespace normbench
