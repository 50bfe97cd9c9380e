// Host memory shared between the harness and the worker processes it forks: pages are
// allocated on first touch, and a child forked at any time sees the same bytes. The harness
// writes inputs here and the worker writes kernel outputs here, so that neither a 7.5 GB input
// nor its output travels through a pipe.
#pragma once

#include <cstddef>

namespace normbench {

class SharedMemory {
 public:
  SharedMemory() = default;
  // Reserves `bytes` (nothing is allocated until touched). Throws RuntimeError if it cannot.
  explicit SharedMemory(size_t bytes);
  ~SharedMemory();
  SharedMemory(SharedMemory&& other) noexcept;
  SharedMemory& operator=(SharedMemory&& other) noexcept;
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;

  char* data() const { return data_; }
  size_t size() const { return size_; }

  // Frees the pages of [offset, size) for everyone, keeping the reservation.
  void release_from(size_t offset) const;

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace normbench
