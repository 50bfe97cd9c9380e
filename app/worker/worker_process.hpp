// A child process that runs untrusted work (kernels and their host launch code) for the
// harness: whatever it does to itself (a crash, a hang, a CUDA context made unusable) ends
// the child, not the run. Parent and child talk in JSON messages, one per line, over two
// pipes; the parent waits for each message at most a given time (the watchdog), after which
// the child is killed.
//
// The child is a fork of the parent, so it starts with the parent's memory (the config, the
// registry, shared mappings made before the fork) and needs nothing serialized. The parent
// must not have initialised CUDA: a forked child cannot use a CUDA context of its parent, so
// every CUDA call of a run happens in a worker.
#pragma once

#include <sys/types.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace normbench {

// The child is gone or was killed: `what` says how ("crashed: SIGSEGV (segmentation fault)",
// "timed out: no answer within 5 s; the worker was killed", "exited with status 3").
struct WorkerLost : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The child's side of the pipes.
class WorkerChannel {
 public:
  WorkerChannel(int in_fd, int out_fd) : in_fd_(in_fd), out_fd_(out_fd) {}
  // The next message from the parent; false when the parent closed the pipe.
  bool receive(nlohmann::json& message);
  void send(const nlohmann::json& message);

 private:
  int in_fd_;
  int out_fd_;
  std::string buffer_;
};

class WorkerProcess {
 public:
  using Body = std::function<int(WorkerChannel&)>;  // the child's work; returns its exit code

  // Forks a child that runs `body` and then exits with its return value (without running the
  // parent's exit handlers or flushing its buffers a second time).
  explicit WorkerProcess(const Body& body);
  ~WorkerProcess();  // kills the child if it is still running
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  void send(const nlohmann::json& message);
  // The child's next message. Throws WorkerLost if the child ends or sends nothing for
  // `timeout_s` seconds (then it is killed first).
  nlohmann::json receive(double timeout_s);
  // Asks the child to stop and waits for it a little; kills it after that.
  void stop();

  pid_t pid() const { return pid_; }

 private:
  [[noreturn]] void lost(const std::string& context);
  std::string reap(bool kill_first);  // how the child ended, in words

  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;
};

// "crashed: SIGSEGV (segmentation fault)" or "exited with status 3", from a waitpid status.
std::string describe_exit(int status);

}  // namespace normbench
