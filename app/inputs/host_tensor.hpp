// A float32 tensor in host memory: its own allocation, or a view of memory owned elsewhere (the
// memory shared with the worker process, app/run/shared_tensors.hpp). Owned memory is left
// uninitialised on purpose: B's input alone is 7.5 GB, and zero-filling it first would double
// the time to make it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace normbench {

struct HostTensor {
  std::vector<int64_t> shape;
  int64_t size = 0;

  HostTensor() = default;
  explicit HostTensor(std::vector<int64_t> dims) : shape(std::move(dims)), size(count(shape)) {
    owned_.reset(new float[static_cast<size_t>(size)]);
    data_ = owned_.get();
  }
  // A view of `memory`, which must hold the tensor and outlive the view.
  HostTensor(std::vector<int64_t> dims, float* memory)
      : shape(std::move(dims)), size(count(shape)), data_(memory) {}

  float* begin() { return data_; }
  const float* begin() const { return data_; }
  size_t bytes() const { return static_cast<size_t>(size) * sizeof(float); }

  static int64_t count(const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }

 private:
  std::unique_ptr<float[]> owned_;
  float* data_ = nullptr;
};

}  // namespace normbench
