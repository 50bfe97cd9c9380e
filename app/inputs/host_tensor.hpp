// A float32 tensor in host memory. Memory is left uninitialised on purpose: B's input alone
// is 7.5 GB, and zero-filling it first would double the time to make it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace normbench {

struct HostTensor {
  std::vector<int64_t> shape;
  int64_t size = 0;
  std::unique_ptr<float[]> data;

  HostTensor() = default;
  explicit HostTensor(std::vector<int64_t> dims) : shape(std::move(dims)), size(1) {
    for (int64_t d : shape) size *= d;
    data.reset(new float[static_cast<size_t>(size)]);
  }
  float* begin() { return data.get(); }
  const float* begin() const { return data.get(); }
  size_t bytes() const { return static_cast<size_t>(size) * sizeof(float); }
};

}  // namespace normbench
