#include "app/util/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace normbench {

ProgressLine::ProgressLine() : enabled_(::isatty(STDOUT_FILENO) != 0) {}

void ProgressLine::update(const std::string& text) {
  if (!enabled_) return;
  if (shared_) return shared_->update(prefix_ + text);
  std::lock_guard<std::mutex> lock(mutex_);
  std::string line = text.size() > 100 ? text.substr(0, 100) : text;
  const size_t length = line.size();
  if (length < last_length_) line.append(last_length_ - length, ' ');
  std::fprintf(stdout, "\r%s", line.c_str());
  std::fflush(stdout);
  last_length_ = length;
}

void ProgressLine::clear() {
  if (!enabled_) return;
  if (shared_) return shared_->clear();
  std::lock_guard<std::mutex> lock(mutex_);
  if (last_length_ == 0) return;
  std::fprintf(stdout, "\r%s\r", std::string(last_length_, ' ').c_str());
  std::fflush(stdout);
  last_length_ = 0;
}

}  // namespace normbench
