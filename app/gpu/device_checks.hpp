// Small device-side helpers of the harness: poisoning outputs, fingerprinting inputs, and
// evicting L2 before a timed sample.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace normbench {

// Fills `count` floats with NaN (all bits set), so that an element a kernel never wrote fails
// verification.
cudaError_t fill_with_nan(float* data, int64_t count, cudaStream_t stream);

// An order-independent 64-bit fingerprint of `count` floats (sum of mixed (index, bits)
// pairs, wrapping): equal data gives equal hashes on every run. Synchronizes the stream.
uint64_t device_fingerprint(const float* data, int64_t count, cudaStream_t stream);

// Reads every byte of `buffer` (at least twice the L2 size) so that L2 holds none of the
// data of the next launch. Reading rather than writing leaves L2 with clean lines, so the
// timed kernel does not pay for writing the flush buffer back.
cudaError_t evict_l2(const void* buffer, size_t bytes, unsigned* sink, cudaStream_t stream);

}  // namespace normbench
