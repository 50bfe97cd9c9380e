// Helpers for tests that need a GPU: they skip with a message where there is none.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

#include "app/worker/worker_process.hpp"

namespace normbench::testing {

// Empty if a CUDA device is usable, else why not. Asked in a child process: the harness forks
// its device workers from the test process, which must not have touched CUDA itself.
inline std::string gpu_unavailable_reason() {
  static const std::string reason = [] {
    try {
      WorkerProcess probe([](WorkerChannel& channel) {
        int count = 0;
        const cudaError_t error = cudaGetDeviceCount(&count);
        channel.send({{"reason", error != cudaSuccess
                                     ? std::string("no CUDA GPU: ") + cudaGetErrorString(error)
                                 : count == 0 ? std::string("no CUDA GPU: 0 devices")
                                              : std::string()}});
        return 0;
      });
      const std::string why = probe.receive(120.0).at("reason");
      probe.stop();
      return why;
    } catch (const std::exception& e) {
      return std::string("no CUDA GPU: the probe failed: ") + e.what();
    }
  }();
  return reason;
}

}  // namespace normbench::testing

#define NORMBENCH_SKIP_WITHOUT_GPU()                                                     \
  do {                                                                                   \
    const std::string normbench_reason = ::normbench::testing::gpu_unavailable_reason(); \
    if (!normbench_reason.empty()) GTEST_SKIP() << normbench_reason;                     \
  } while (0)
