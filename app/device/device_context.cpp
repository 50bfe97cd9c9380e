#include "app/device/device_context.hpp"

#include <fmt/format.h>

#include "app/device/activity_trace.hpp"
#include "app/device/cuda_check.hpp"
#include "app/device/device_checks.hpp"

namespace normbench {

DeviceContext::~DeviceContext() {
  if (stream) cudaStreamDestroy(stream);
}

std::unique_ptr<DeviceContext> open_device(int index) {
  // Before the process's first CUDA call; a worker opens one device once.
  static const std::optional<std::string> untraced = activity_trace::start();
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess || count == 0)
    throw RuntimeError("no CUDA GPU is available (" +
                       (error != cudaSuccess ? cuda_error_text(error) : std::string("0 devices")) +
                       "); `normbench run` needs an NVIDIA GPU and driver, `normbench list` "
                       "works without one");
  if (index < 0 || index >= count)
    throw UsageError("--device " + std::to_string(index) + ": no such device; allowed: 0 to " +
                     std::to_string(count - 1));
  NORMBENCH_CUDA_CHECK(cudaSetDevice(index));

  cudaDeviceProp prop{};
  NORMBENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  if (const cudaError_t code = device_code_status(); code != cudaSuccess) {
    (void)cudaGetLastError();  // not left for the next call's check to find
    throw RuntimeError(fmt::format(
        "this build of normbench has no device code for {} (compute capability {}.{}; {}): it "
        "was built for the CUDA architectures {}; rebuild with "
        "-DCMAKE_CUDA_ARCHITECTURES={}{} (docs/development.md)",
        prop.name, prop.major, prop.minor, cuda_error_text(code), NORMBENCH_CUDA_ARCHITECTURES,
        prop.major, prop.minor));
  }
  auto ctx = std::make_unique<DeviceContext>();
  DeviceInfo& info = ctx->info;
  info.index = index;
  info.name = prop.name;
  info.sm_count = prop.multiProcessorCount;
  info.compute_capability_major = prop.major;
  info.compute_capability_minor = prop.minor;
  info.memory_bytes = prop.totalGlobalMem;
  info.l2_bytes = static_cast<uint64_t>(prop.l2CacheSize);
  NORMBENCH_CUDA_CHECK(
      cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, index));
  NORMBENCH_CUDA_CHECK(
      cudaDeviceGetAttribute(&info.memory_bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, index));
  NORMBENCH_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  NORMBENCH_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));

  DeviceCaps& caps = ctx->caps;
  caps.sm_count = prop.multiProcessorCount;
  caps.compute_capability_major = prop.major;
  caps.compute_capability_minor = prop.minor;
  caps.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
  caps.shared_memory_per_sm = prop.sharedMemPerMultiprocessor;
  caps.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  caps.cooperative_launch = prop.cooperativeLaunch != 0;

  NORMBENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking));
  info.untraced = untraced.value_or("");
  ctx->traced = activity_trace::traced_streams(ctx->stream);
  return ctx;
}

size_t free_device_memory() {
  size_t free = 0, total = 0;
  NORMBENCH_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  return free;
}

}  // namespace normbench
