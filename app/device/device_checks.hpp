// Small device-side helpers of the harness: poisoning outputs, fingerprinting inputs, and
// evicting L2 before a timed sample.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace normbench {

// Fills `count` floats with NaN (all bits set), so that an element a kernel never wrote fails
// verification.
cudaError_t fill_with_nan(float* data, int64_t count, cudaStream_t stream);

// An order-independent 64-bit fingerprint of `count` 32-bit words (sum of mixed (index, bits)
// pairs, wrapping): equal data gives equal hashes on every run, and data that differs in any
// bit of any word gives a different one but with a chance of 2^-64. `scratch` is one device
// word. Synchronizes the stream.
uint64_t device_fingerprint(const void* data, int64_t count, unsigned long long* scratch,
                            cudaStream_t stream);

// Evicts L2 before a timed launch: reads every byte of `buffer` (twice the L2 size) at
// evict-last priority, which pushes out every line including evict-last ones, then discards
// the buffer's lines. Reading rather than writing (cudaMemset) means the timed launch does
// not pay for writing the flush buffer back, and L2 starts empty.
cudaError_t evict_l2(const void* buffer, size_t bytes, unsigned* sink, cudaStream_t stream);

// Keeps the stream busy for about `microseconds`, so that the launches enqueued meanwhile by
// the host are already queued when the GPU reaches the timed region: events then time GPU
// work, not host-side launch overhead.
cudaError_t hold_gpu(double microseconds, cudaStream_t stream);

}  // namespace normbench
