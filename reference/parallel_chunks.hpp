// A minimal parallel loop over fixed-size chunks. Work is split by chunk, never by thread, so
// any result that is combined per chunk in chunk order is identical for every thread count.
// It lives with the reference because the reference's results must not depend on the thread
// count; the harness (inputs, verification, tensor dumps) uses the same loop from here.
#pragma once

#include <cstdint>
#include <functional>

namespace normbench {

// NORMBENCH_THREADS if set to a positive integer, else the hardware's thread count.
int default_thread_count();

// Calls body(chunk_index, begin, end) for each chunk [begin, end) of [0, n), chunk items
// long (the last may be shorter), on up to `threads` threads. Rethrows the first exception.
void parallel_for_chunks(int64_t n, int64_t chunk,
                         const std::function<void(int64_t, int64_t, int64_t)>& body,
                         int threads = default_thread_count());

}  // namespace normbench
