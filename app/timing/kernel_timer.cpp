#include "app/timing/kernel_timer.hpp"

#include <algorithm>
#include <chrono>

#include "app/device/activity_trace.hpp"
#include "app/device/cuda_check.hpp"
#include "app/device/cuda_event.hpp"
#include "app/device/device_checks.hpp"
#include "app/timing/statistics.hpp"

namespace normbench {

namespace {
void launch_checked(const std::function<cudaError_t()>& launch, cudaStream_t stream,
                    const CudaEvent& start, const CudaEvent& stop) {
  const cudaError_t error =
      traced_launch(launch, activity_trace::next_launch_serial(), stream, start.get(), stop.get());
  if (error != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky launch error
    throw KernelLaunchError("launch failed: " + cuda_error_text(error));
  }
}
}  // namespace

cudaError_t traced_launch(const std::function<cudaError_t()>& launch, uint64_t serial,
                          cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop) {
  {
    const activity_trace::Mark mark(make_mark(serial, MarkRole::start));
    NORMBENCH_CUDA_CHECK(cudaEventRecord(start, stream));
  }
  cudaError_t error = cudaSuccess;
  {
    const activity_trace::Mark mark(make_mark(serial, MarkRole::launch));
    error = launch();
  }
  const activity_trace::Mark mark(make_mark(serial, MarkRole::end));
  NORMBENCH_CUDA_CHECK(cudaEventRecord(stop, stream));
  return error;
}

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
  CudaEvent start, stop;
  auto launch_and_finish = [&] {
    launch_checked(launch, stream, start, stop);
    if (hooks.after_launch) NORMBENCH_CUDA_CHECK(hooks.after_launch());
  };
  for (int i = 0; i < settings.warmup; ++i) launch_and_finish();
  NORMBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (hooks.after_warmup) hooks.after_warmup();

  TimingResult result;
  const auto began = std::chrono::steady_clock::now();
  for (;;) {
    if (hooks.before) NORMBENCH_CUDA_CHECK(hooks.before(result.samples_ms.size()));
    // The eviction (tens of microseconds of GPU work) covers the host's launch overhead;
    // without it a short hold does.
    if (evictor && settings.flush_l2)
      NORMBENCH_CUDA_CHECK(evictor->evict(stream));
    else
      NORMBENCH_CUDA_CHECK(hold_gpu(std::max(50.0, hooks.hold_us), stream));
    if (hooks.hold_us > 0.0 && evictor && settings.flush_l2)
      NORMBENCH_CUDA_CHECK(hold_gpu(hooks.hold_us, stream));
    launch_and_finish();
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
