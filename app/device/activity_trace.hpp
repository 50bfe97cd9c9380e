// In the device worker: CUPTI's activity records of every kernel, copy, memset, event record
// and stream wait of the process, and the marks that tie the worker's own API calls to them
// (app/check/activity_accounting.hpp says what is concluded from them).
//
// libcupti is loaded at run time (it ships with the CUDA toolkit, not the driver): where it is
// missing or refuses (another profiler attached, no permission), or NORMBENCH_ACTIVITY_TRACE=off
// asks so, tracing is unavailable, the report says why, and the checks that need no trace still
// apply.
//
// Measured on the H100 (scripts/probes/cupti_accounting.cu): with kernel records but without
// the runtime API's records, every event-timed kernel took 13-14 us longer; with both, the
// medians of a 2 us kernel and a 192 us copy moved by less than 1%. The runtime API's records
// are enabled for that, and because the harness's marks (external correlation ids) are reported
// through them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>

#include "app/check/activity_accounting.hpp"

namespace normbench::activity_trace {

// Starts tracing this process's device work and marks the calling thread's API calls as the
// harness's. Call once, before the process's first CUDA call. Returns why tracing is
// unavailable, if it is.
std::optional<std::string> start();
bool available();

// CUPTI's ids of `given` and of the default streams (after the device is open).
TracedStreams traced_streams(cudaStream_t given);

// Marks the API calls this thread makes while it lives (a launch's start record, its launch
// call, its end record); no-op without tracing.
class Mark {
 public:
  explicit Mark(uint64_t mark);
  ~Mark();
  Mark(const Mark&) = delete;
  Mark& operator=(const Mark&) = delete;
};

// A serial number for the next traced launch (1, 2, ...).
uint64_t next_launch_serial();

// The records since the last collect(). The caller waits for the whole device first, so that
// every operation has ended. Empty without tracing.
ActivityLog collect();

}  // namespace normbench::activity_trace
