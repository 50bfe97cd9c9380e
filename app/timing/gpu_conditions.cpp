#include "app/timing/gpu_conditions.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

namespace normbench {

namespace {
// NVML's C interface, as much of it as is used here (nvml.h: these signatures are stable
// across driver versions; nvmlReturn_t 0 is success).
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kClockSm = 1, kClockMem = 2;  // nvmlClockType_t
constexpr int kTemperatureGpu = 0;          // nvmlTemperatureSensors_t
}  // namespace

struct GpuConditions::Api {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*handle_by_pci)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*) = nullptr;
  nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
};

std::unique_ptr<GpuConditions> GpuConditions::open(int cuda_device, std::string& why_not) {
  static GpuConditions::Api api;
  void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    why_not = "libnvidia-ml.so.1 (NVML, part of the driver) was not found";
    return nullptr;
  }
  auto find = [&](auto& function, const char* symbol) {
    function =
        reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(library, symbol));
    return function != nullptr;
  };
  bool complete = find(api.init, "nvmlInit_v2") &&
                  find(api.handle_by_pci, "nvmlDeviceGetHandleByPciBusId_v2") &&
                  find(api.clock, "nvmlDeviceGetClockInfo") &&
                  find(api.temperature, "nvmlDeviceGetTemperature") &&
                  find(api.power, "nvmlDeviceGetPowerUsage") &&
                  find(api.error_string, "nvmlErrorString");
  // Renamed in driver 535; the older name stays exported.
  complete = complete && (find(api.reasons, "nvmlDeviceGetCurrentClocksEventReasons") ||
                          find(api.reasons, "nvmlDeviceGetCurrentClocksThrottleReasons"));
  if (!complete) {
    why_not = "libnvidia-ml.so.1 lacks functions normbench uses (an older driver)";
    return nullptr;
  }
  if (const nvmlReturn_t r = api.init(); r != kNvmlSuccess) {
    why_not = std::string("nvmlInit failed: ") + api.error_string(r);
    return nullptr;
  }
  char pci[64] = {};
  if (cudaDeviceGetPCIBusId(pci, sizeof pci, cuda_device) != cudaSuccess) {
    cudaGetLastError();
    why_not = "the GPU's PCI bus id is unknown to CUDA";
    return nullptr;
  }
  nvmlDevice_t device = nullptr;
  if (const nvmlReturn_t r = api.handle_by_pci(pci, &device); r != kNvmlSuccess) {
    why_not = std::string("NVML does not know the GPU at ") + pci + ": " + api.error_string(r);
    return nullptr;
  }
  return std::make_unique<GpuConditions>(&api, device);
}

std::optional<GpuReading> GpuConditions::read() const {
  unsigned sm = 0, memory = 0, temperature = 0, milliwatts = 0;
  unsigned long long reasons = 0;
  if (api_->clock(device_, kClockSm, &sm) != kNvmlSuccess ||
      api_->clock(device_, kClockMem, &memory) != kNvmlSuccess ||
      api_->temperature(device_, kTemperatureGpu, &temperature) != kNvmlSuccess ||
      api_->power(device_, &milliwatts) != kNvmlSuccess ||
      api_->reasons(device_, &reasons) != kNvmlSuccess)
    return std::nullopt;
  return GpuReading{static_cast<int>(sm), static_cast<int>(memory), static_cast<int>(temperature),
                    milliwatts / 1000.0, reasons};
}

std::optional<uint64_t> GpuConditions::clock_event_reasons() const {
  unsigned long long reasons = 0;
  if (api_->reasons(device_, &reasons) != kNvmlSuccess) return std::nullopt;
  return reasons;
}

}  // namespace normbench
