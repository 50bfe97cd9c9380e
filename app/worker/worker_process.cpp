#include "app/worker/worker_process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "app/util/errors.hpp"

namespace normbench {

namespace {

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw WorkerLost(std::string("the pipe broke: ") + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

// Takes one complete line out of `buffer`, if there is one.
bool take_line(std::string& buffer, std::string& line) {
  const size_t end = buffer.find('\n');
  if (end == std::string::npos) return false;
  line = buffer.substr(0, end);
  buffer.erase(0, end + 1);
  return true;
}

// In the child: closes every descriptor it inherited but stdio and its own two pipe ends.
// Harness threads of several GPUs fork workers while other workers' pipes are open; a worker
// holding a copy of a sibling's pipe would keep that sibling from ever seeing the end of its
// input (the harness's stop), and the harness from seeing a crashed sibling's pipe close.
void close_inherited_descriptors(int in_fd, int out_fd) {
  std::vector<int> inherited;
  if (DIR* dir = ::opendir("/proc/self/fd")) {
    const int own = ::dirfd(dir);
    while (const dirent* entry = ::readdir(dir)) {
      const int fd = std::atoi(entry->d_name);  // "." and ".." read as 0
      if (fd > STDERR_FILENO && fd != own && fd != in_fd && fd != out_fd) inherited.push_back(fd);
    }
    ::closedir(dir);
  }
  for (int fd : inherited) ::close(fd);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return "crashed: " +
           std::string(name ? std::string("SIG") + name : "signal " + std::to_string(sig)) + " (" +
           strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended (status " + std::to_string(status) + ")";
}

bool WorkerChannel::receive(nlohmann::json& message) {
  std::string line;
  while (!take_line(buffer_, line)) {
    char chunk[65536];
    const ssize_t n = ::read(in_fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
  message = nlohmann::json::parse(line);
  return true;
}

void WorkerChannel::send(const nlohmann::json& message) {
  write_all(out_fd_, message.dump() + "\n");
}

WorkerProcess::WorkerProcess(const Body& body) {
  int down[2], up[2];
  if (::pipe2(down, O_CLOEXEC) != 0 || ::pipe2(up, O_CLOEXEC) != 0)
    throw RuntimeError(std::string("cannot create the worker's pipes: ") + std::strerror(errno));
  // Buffered output would be written twice, once by each process.
  std::fflush(stdout);
  std::fflush(stderr);
  pid_ = ::fork();
  if (pid_ < 0) throw RuntimeError(std::string("cannot start a worker: ") + std::strerror(errno));
  if (pid_ == 0) {
    ::close(down[1]);
    ::close(up[0]);
    close_inherited_descriptors(down[0], up[1]);
    // Whatever kernels print (device printf, host code) goes to stderr: stdout is the
    // harness's table, for pipes and logs.
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    int code = 70;
    try {
      WorkerChannel channel(down[0], up[1]);
      code = body(channel);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "normbench worker: %s\n", e.what());
    }
    std::fflush(stderr);
    ::_exit(code);
  }
  ::close(down[0]);
  ::close(up[1]);
  to_child_ = down[1];
  from_child_ = up[0];
  // A child that died leaves a broken pipe: writing to it must fail, not kill the parent.
  ::signal(SIGPIPE, SIG_IGN);
}

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0) reap(true);
  if (to_child_ >= 0) ::close(to_child_);
  if (from_child_ >= 0) ::close(from_child_);
}

void WorkerProcess::send(const nlohmann::json& message) {
  if (pid_ <= 0) throw WorkerLost("the worker is not running");
  try {
    write_all(to_child_, message.dump() + "\n");
  } catch (const WorkerLost&) {
    lost("while sending it work");
  }
}

nlohmann::json WorkerProcess::receive(double timeout_s) {
  if (pid_ <= 0) throw WorkerLost("the worker is not running");
  const auto start = std::chrono::steady_clock::now();
  std::string line;
  while (!take_line(buffer_, line)) {
    const double left = timeout_s - seconds_since(start);
    if (left <= 0.0) {
      const std::string how = reap(true);
      (void)how;
      char text[160];
      std::snprintf(text, sizeof text,
                    "timed out: no answer within %g s (timing.kernel_timeout_s); the worker was "
                    "killed",
                    timeout_s);
      throw WorkerLost(text);
    }
    pollfd fd{from_child_, POLLIN, 0};
    const int ready = ::poll(&fd, 1, static_cast<int>(std::min(left * 1000.0 + 1.0, 1e9)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline is checked above
    char chunk[65536];
    const ssize_t n = ::read(from_child_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) lost("");
    buffer_.append(chunk, static_cast<size_t>(n));
  }
  try {
    return nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception&) {
    reap(true);
    throw WorkerLost("sent a message that is not JSON: " + line.substr(0, 80));
  }
}

void WorkerProcess::stop() {
  if (pid_ <= 0) return;
  ::close(to_child_);  // the child's receive() returns false and it exits
  to_child_ = -1;
  for (int i = 0; i < 200; ++i) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  reap(true);
}

void WorkerProcess::lost(const std::string& context) {
  const std::string how = reap(false);
  throw WorkerLost(how + (context.empty() ? "" : " " + context));
}

std::string WorkerProcess::reap(bool kill_first) {
  if (pid_ <= 0) return "ended";
  if (kill_first) ::kill(pid_, SIGKILL);
  int status = 0;
  pid_t done;
  do {
    done = ::waitpid(pid_, &status, 0);
  } while (done < 0 && errno == EINTR);
  pid_ = -1;
  return done < 0 ? "ended" : describe_exit(status);
}

}  // namespace normbench
