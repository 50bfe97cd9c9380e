#include "app/timing/kernel_timer.hpp"

#include <algorithm>
#include <chrono>

#include "app/device/cuda_check.hpp"
#include "app/device/device_checks.hpp"
#include "app/timing/statistics.hpp"

namespace normbench {

namespace {
class Event {
 public:
  Event() { NORMBENCH_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

void launch_checked(const std::function<cudaError_t()>& launch) {
  const cudaError_t error = launch();
  if (error != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky launch error
    throw KernelLaunchError("launch failed: " + cuda_error_text(error));
  }
}
}  // namespace

L2Evictor::L2Evictor(size_t l2_bytes, cudaStream_t stream)
    : buffer_(2 * std::max<size_t>(l2_bytes, 1 << 20)), sink_(sizeof(unsigned)) {
  NORMBENCH_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), 0, buffer_.bytes(), stream));
  NORMBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
}

cudaError_t L2Evictor::evict(cudaStream_t stream) const {
  return evict_l2(buffer_.get(), buffer_.bytes(), sink_.as<unsigned>(), stream);
}

double drain_after(cudaStream_t stream) {
  NORMBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto stream_done = std::chrono::steady_clock::now();
  NORMBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - stream_done)
      .count();
}

TimingResult time_launches(const std::function<cudaError_t()>& launch,
                           const TimingSettings& settings, const L2Evictor* evictor,
                           cudaStream_t stream, const SampleHooks& hooks) {
  for (int i = 0; i < settings.warmup; ++i) launch_checked(launch);
  NORMBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));

  Event start, stop;
  TimingResult result;
  const auto began = std::chrono::steady_clock::now();
  for (;;) {
    if (hooks.before) NORMBENCH_CUDA_CHECK(hooks.before());
    // The eviction (tens of microseconds of GPU work) covers the host's launch overhead;
    // without it a short hold does.
    if (evictor && settings.flush_l2)
      NORMBENCH_CUDA_CHECK(evictor->evict(stream));
    else
      NORMBENCH_CUDA_CHECK(hold_gpu(50.0, stream));
    NORMBENCH_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    launch_checked(launch);
    NORMBENCH_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    result.escaped_us.push_back(drain_after(stream));
    float ms = 0.0f;
    NORMBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    result.samples_ms.push_back(ms);
    if (hooks.after) hooks.after(result.samples_ms.size() - 1);
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    result.stop = stop_reason(result.samples_ms, elapsed, settings);
    if (result.stop != StopReason::keep_sampling) {
      result.sampling_time_s = elapsed;
      break;
    }
  }
  result.summary = summarize(result.samples_ms);
  result.median_interval = median_interval(result.samples_ms);
  return result;
}

}  // namespace normbench
