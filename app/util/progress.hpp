// One self-overwriting status line on long runs, shown only when stdout is a terminal, so
// that logs and pipes get the clean table alone. Several threads (one per GPU) may each own a
// line that writes through one shared line with a prefix of its own.
#pragma once

#include <mutex>
#include <string>

namespace normbench {

class ProgressLine {
 public:
  ProgressLine();  // enabled iff stdout is a terminal
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  // Writes through `shared` (which must outlive it), each text after `prefix`.
  ProgressLine(ProgressLine& shared, std::string prefix)
      : shared_(&shared), prefix_(std::move(prefix)), enabled_(shared.enabled_) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(const std::string& text);
  void clear();

 private:
  ProgressLine* shared_ = nullptr;
  std::string prefix_;
  bool enabled_;
  size_t last_length_ = 0;
  std::mutex mutex_;
};

}  // namespace normbench
