// One self-overwriting status line on long runs, shown only when stdout is a terminal, so
// that logs and pipes get the clean table alone.
#pragma once

#include <string>

namespace normbench {

class ProgressLine {
 public:
  ProgressLine();  // enabled iff stdout is a terminal
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  void update(const std::string& text);
  void clear();

 private:
  bool enabled_;
  size_t last_length_ = 0;
};

}  // namespace normbench
