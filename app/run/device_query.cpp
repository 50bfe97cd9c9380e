#include "app/run/device_query.hpp"

#include <cuda_runtime_api.h>

#include "app/device/cuda_check.hpp"
#include "app/util/errors.hpp"
#include "app/worker/worker_process.hpp"

namespace normbench {

int count_visible_devices() {
  WorkerProcess child([](WorkerChannel& channel) {
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    channel.send({{"count", error == cudaSuccess ? count : 0},
                  {"error", error == cudaSuccess ? std::string() : cuda_error_text(error)}});
    return 0;
  });
  nlohmann::json reply;
  try {
    reply = child.receive(120.0);  // a first CUDA call may load the driver: seconds, not minutes
  } catch (const WorkerLost& e) {
    throw RuntimeError(std::string("cannot count the GPUs: the process asking ") + e.what());
  }
  child.stop();
  const int count = reply.at("count");
  if (count > 0) return count;
  const std::string error = reply.at("error");
  throw RuntimeError("no CUDA GPU is available (" + (error.empty() ? "0 devices" : error) +
                     "); `normbench run` needs an NVIDIA GPU and driver, `normbench list` "
                     "works without one");
}

}  // namespace normbench
