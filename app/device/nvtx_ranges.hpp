// NVTX ranges around the worker's problems, checked launches and timings, named by problem and
// kernel id, so that an nsys or ncu capture of a run is navigable. Header-only NVTX v3 (the
// CUDA toolkit's): without a tool attached every call is a no-op.
#pragma once

#include <nvtx3/nvToolsExt.h>

#include <string>

namespace normbench {

// A range on this thread for as long as it lives.
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

// A range that may end on another request: a problem's, from loading to the next problem.
class NvtxSpan {
 public:
  NvtxSpan() = default;
  explicit NvtxSpan(const std::string& name) : id_(nvtxRangeStartA(name.c_str())), open_(true) {}
  ~NvtxSpan() {
    if (open_) nvtxRangeEnd(id_);
  }
  NvtxSpan(NvtxSpan&& other) noexcept : id_(other.id_), open_(other.open_) { other.open_ = false; }
  NvtxSpan& operator=(NvtxSpan&& other) noexcept {
    if (this != &other) {
      if (open_) nvtxRangeEnd(id_);
      id_ = other.id_;
      open_ = other.open_;
      other.open_ = false;
    }
    return *this;
  }

 private:
  nvtxRangeId_t id_ = 0;
  bool open_ = false;
};

}  // namespace normbench
