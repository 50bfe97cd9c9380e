#include "app/util/shared_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "app/util/errors.hpp"

namespace normbench {

namespace {
size_t page_size() {
  static const size_t size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}
}  // namespace

SharedMemory::SharedMemory(size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw RuntimeError("cannot reserve " + std::to_string(bytes) +
                       " bytes of shared host memory: " + std::strerror(errno));
  data_ = static_cast<char*>(p);
}

SharedMemory::~SharedMemory() {
  if (data_) ::munmap(data_, size_);
}

SharedMemory::SharedMemory(SharedMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

SharedMemory& SharedMemory::operator=(SharedMemory&& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
  return *this;
}

void SharedMemory::release_from(size_t offset) const {
  const size_t page = page_size();
  const size_t first = (offset + page - 1) / page * page;
  if (data_ && first < size_) ::madvise(data_ + first, size_ - first, MADV_REMOVE);
}

}  // namespace normbench
