// Small device-side helpers of the harness: poisoning outputs, fingerprinting inputs and
// outputs, checking outputs against their tolerance bounds, and evicting L2 before a timed
// sample.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/problem_shape.hpp"

namespace normbench {

// Sets every bit of `bytes` bytes: NaN in float32, bfloat16 and float16 alike, so that an
// element a kernel never wrote fails verification.
cudaError_t fill_with_nan(void* data, size_t bytes, cudaStream_t stream);

// An order-independent 64-bit fingerprint of `bytes` bytes, read as 32-bit words plus a 16-bit
// tail when bytes % 4 == 2 (an odd count of 16-bit elements); sum of mixed (index, bits) pairs,
// wrapping: equal data gives equal hashes on every run, and data that differs in any bit gives a
// different one but with a chance of 2^-64. bytes must be even. `scratch` is one device word.
// Synchronizes the stream.
uint64_t device_fingerprint(const void* data, size_t bytes, unsigned long long* scratch,
                            cudaStream_t stream);

// How many of `count` elements of `dtype` at `data` lie outside [lower[i], upper[i]] (where
// lower[i] is NaN: are not NaN), and the lowest index of those (app/check/tolerance_bounds.hpp).
struct BoundsCheck {
  uint64_t outside = 0;
  uint64_t first = 0;  // meaningful where outside > 0
};
// `scratch` is two device words. Synchronizes the stream.
BoundsCheck device_bounds_check(const void* data, DType dtype, const float* lower,
                                const float* upper, size_t count, unsigned long long* scratch,
                                cudaStream_t stream);

// Exchanges the contents of two device buffers of `bytes` bytes (even), in place: the fresh
// inputs move to the addresses the kernel reads while the others wait where the fresh ones were.
cudaError_t swap_contents(void* a, void* b, size_t bytes, cudaStream_t stream);

// Evicts L2 before a timed launch: reads every byte of `buffer` (twice the L2 size) at
// evict-last priority, which pushes out every line including evict-last ones, then discards
// the buffer's lines. Reading rather than writing (cudaMemset) means the timed launch does
// not pay for writing the flush buffer back, and L2 starts empty.
cudaError_t evict_l2(const void* buffer, size_t bytes, unsigned* sink, cudaStream_t stream);

// Whether this build holds device code the current device can run (machine code for its
// architecture, or PTX its driver can compile): cudaErrorNoKernelImageForDevice (or
// cudaErrorInvalidDeviceFunction) where it holds none, e.g. a Hopper-only build on an A100.
cudaError_t device_code_status();

// Keeps the stream busy for about `microseconds`, so that the launches enqueued meanwhile by
// the host are already queued when the GPU reaches the timed region: events then time GPU
// work, not host-side launch overhead.
cudaError_t hold_gpu(double microseconds, cudaStream_t stream);

}  // namespace normbench
