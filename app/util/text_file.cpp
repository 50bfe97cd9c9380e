#include "app/util/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "app/util/errors.hpp"
#include "app/util/shown_text.hpp"

namespace normbench {

namespace {

std::string prefix(const std::string& path, const std::string& what) {
  return shown(path) + ": cannot read the " + what + ": ";
}

// Why a file of this status cannot be read as a file, if it cannot.
std::string not_a_file(const struct stat& st) {
  if (S_ISREG(st.st_mode)) return "";
  if (S_ISDIR(st.st_mode)) return "it is a directory";
  const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  return std::string("it is ") + kind + "; allowed: a regular file";
}

std::string size_text(size_t bytes) {
  return std::to_string(bytes) + " bytes (" + std::to_string(bytes >> 20) + " MiB)";
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string read_text_file(const std::string& path, const std::string& what, size_t max_bytes) {
  if (path.empty())
    throw UsageError("\"\": cannot read the " + what + ": the path is empty; allowed: a file path");
  const std::string why = prefix(path, what);
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
  const FileDescriptor file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (file.get() < 0) throw UsageError(why + std::strerror(errno));
  struct stat st {};
  if (::fstat(file.get(), &st) != 0) throw UsageError(why + std::strerror(errno));
  if (const std::string wrong = not_a_file(st); !wrong.empty()) throw UsageError(why + wrong);
  const auto too_large = [&](const std::string& size) {
    return UsageError(why + "it is " + size + "; allowed: at most " + size_text(max_bytes));
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes)
    throw too_large(size_text(static_cast<size_t>(st.st_size)));
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(file.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw UsageError(why + "read error: " + std::strerror(errno));
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > max_bytes) throw too_large("over that");  // it grew while being read
  }
  return text;
}

std::string why_not_a_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  return not_a_file(st);
}

}  // namespace normbench
