// Programmatic dependent launch (sm_90): a kernel launched with launch_dependent may be
// scheduled while the kernel before it on the stream still runs, so the launch latency
// between two kernels of one variant overlaps the first kernel's tail (on the H100,
// group_norm_backward.channel_sums' event-timed median stood ~6 us above its three kernels'
// device time without, ~2.5 us with). The dependent kernel must call wait_for_previous_kernel()
// before it reads anything the previous kernel wrote (or writes anything it reads): that waits
// until the previous kernel has finished and its writes are visible. The first kernel of a variant
// is launched normally: it must not overlap the harness's work before it.
#pragma once

#include <cuda_runtime.h>

namespace normbench::kernels {

// Lets the next kernel on the stream, if launched with launch_dependent, start launching now.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Waits for the kernel before this one on the stream to finish, its writes visible; a no-op
// where this kernel was launched without launch_dependent.
__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

template <class... Params, class... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared,
                             cudaStream_t stream, Args... args) {
  cudaLaunchAttribute dependent{};
  dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  config.attrs = &dependent;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...);
}

}  // namespace normbench::kernels
