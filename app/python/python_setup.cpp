#include "app/python/python_setup.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "app/util/errors.hpp"
#include "app/util/shown_text.hpp"

extern char** environ;

namespace normbench {

namespace {

// Run by the chosen Python: one JSON object on stdout. Its arguments are folders that may hold
// normbench_torch when it is not installed (the source tree's python/, next to the binary).
constexpr const char* kProbe = R"(
import json, os, sys, sysconfig
def text(s):  # a lone surrogate (a byte that is not UTF-8) written out: JSON holds UTF-8 only
    return s.encode("utf-8", "backslashreplace").decode("utf-8")
answer = {"executable": sys.executable, "home": sys.base_prefix,
          "version": "%d.%d.%d" % sys.version_info[:3]}
names = [sysconfig.get_config_var(n) for n in ("INSTSONAME", "LDLIBRARY")]
folders = [sysconfig.get_config_var("LIBDIR"), os.path.join(sys.base_prefix, "lib")]
if sysconfig.get_config_var("Py_ENABLE_SHARED"):
    for folder in folders:
        for name in names:
            candidate = os.path.join(folder or "", name or "")
            if ".so" in (name or "") and os.path.isfile(candidate) and "library" not in answer:
                answer["library"] = candidate
path = sys.path[1:]
try:
    import normbench_torch
except ImportError:
    for folder in sys.argv[1:]:
        if os.path.isfile(os.path.join(folder, "normbench_torch", "bridge.py")):
            path.insert(0, folder)
            sys.path.insert(0, folder)
            break
try:
    import normbench_torch.bridge
    answer["package"] = os.path.dirname(normbench_torch.__file__)
except Exception as e:
    answer["package_error"] = text("%s: %s" % (type(e).__name__, e))
try:
    import torch
    answer["torch"] = torch.__version__
except Exception as e:
    answer["torch_error"] = text("%s: %s" % (type(e).__name__, e))
answer["path"] = [folder for folder in path if folder == text(folder)]  # others cannot travel
print(json.dumps(answer))
)";

// The folder of this program, for the source tree's python/ beside build/.
std::string program_folder() {
  char buffer[4096];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return ".";
  std::string path(buffer, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

// The most of the probe's output read: its answer is a few kilobytes (sys.path); more is a
// program that is not the probe (`yes`), which must not fill the harness's memory.
constexpr size_t kMaxProbeOutput = size_t{1} << 20;

struct Captured {
  int status = -1;  // waitpid's; -1: could not be started
  std::string out;
  bool timed_out = false;   // no answer within the timeout: killed
  bool overflowed = false;  // printed more than kMaxProbeOutput: killed
};

// Reads `fd` until its end, `deadline` or kMaxProbeOutput bytes, whichever comes first.
void read_until(int fd, std::chrono::steady_clock::time_point deadline, Captured& c) {
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      c.timed_out = true;
      return;
    }
    pollfd ready{fd, POLLIN, 0};
    const int n_ready = poll(&ready, 1, static_cast<int>(std::min<int64_t>(left.count(), 60000)));
    if (n_ready < 0 && errno == EINTR) continue;
    if (n_ready < 0) return;
    if (n_ready == 0) continue;  // the deadline is checked above
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // its end (or an error, read as one)
    c.out.append(buffer, static_cast<size_t>(n));
    if (c.out.size() > kMaxProbeOutput) {
      c.overflowed = true;
      return;
    }
  }
}

// Waits for `pid` until `deadline` (a program may close its output and run on), then kills it.
void reap(pid_t pid, std::chrono::steady_clock::time_point deadline, Captured& c) {
  if (!c.timed_out && !c.overflowed)
    while (std::chrono::steady_clock::now() < deadline) {
      const pid_t done = waitpid(pid, &c.status, WNOHANG);
      if (done == pid) return;
      if (done < 0 && errno != EINTR) return;
      usleep(10000);
    }
  if (!c.overflowed) c.timed_out = true;
  kill(pid, SIGKILL);
  while (waitpid(pid, &c.status, 0) < 0 && errno == EINTR) {
  }
}

// Runs argv[0] (looked up on PATH) and captures its stdout; stderr goes to /dev/null. A program
// still running at `timeout`, or printing more than kMaxProbeOutput, is killed.
Captured run_captured(const std::vector<std::string>& args, std::chrono::seconds timeout) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw RuntimeError("cannot make a pipe to run Python");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  Captured c;
  if (spawned != 0) {
    close(pipe_fds[0]);
    return c;
  }
  read_until(pipe_fds[0], deadline, c);
  close(pipe_fds[0]);
  reap(pid, deadline, c);
  return c;
}

// The probe's field `key` when it is a string (or absent: ""); another type is another
// program's JSON, refused by name rather than left to escape as a json type_error.
std::string text_field(const nlohmann::json& j, const char* key, const std::string& who) {
  if (!j.contains(key)) return "";
  const nlohmann::json& v = j.at(key);
  if (!v.is_string())
    throw UsageError(who + "'s answer to normbench's probe has \"" + key +
                     "\": " + shown(v.dump()) + "; expected a string (is it a Python 3?)");
  return v.get<std::string>();
}

}  // namespace

PythonSetup python_setup_from(const std::string& probe_output, const std::string& interpreter,
                              const std::string& what) {
  const std::string who = what + " needs Python with PyTorch; " + shown(interpreter);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(probe_output);
  } catch (const nlohmann::json::exception&) {
    throw UsageError(who + " did not answer normbench's probe (is it a Python 3?)");
  }
  if (!j.is_object() || !j.contains("executable") || !j.contains("path"))
    throw UsageError(who + " did not answer normbench's probe (is it a Python 3?)");
  const nlohmann::json& path = j.at("path");
  if (!path.is_array() ||
      !std::all_of(path.begin(), path.end(), [](const auto& p) { return p.is_string(); }))
    throw UsageError(who + "'s answer to normbench's probe has \"path\": " + shown(path.dump()) +
                     "; expected a list of strings (is it a Python 3?)");
  PythonSetup s;
  s.executable = text_field(j, "executable", who);
  s.home = text_field(j, "home", who);
  s.version = text_field(j, "version", who);
  s.path = path.get<std::vector<std::string>>();
  s.library = text_field(j, "library", who);
  s.torch_version = text_field(j, "torch", who);
  const std::string torch_error = text_field(j, "torch_error", who);
  const std::string package_error = text_field(j, "package_error", who);
  if (!j.contains("library"))
    throw UsageError(who + " (Python " + shown(s.version) +
                     ") has no shared libpython, which normbench's worker loads; use a Python "
                     "built with --enable-shared (a distribution's python3 is) through "
                     "NORMBENCH_PYTHON");
  // dlopen("") opens the worker's own program; a bare name is looked up on the worker's library
  // path, not where the probe found it.
  if (s.library.empty() || s.library.front() != '/')
    throw UsageError(who + "'s answer to normbench's probe has the libpython " + shown(s.library) +
                     ", not an absolute path (is it a Python 3?)");
  if (j.contains("torch_error"))
    throw UsageError(who + " cannot import torch: " + shown(torch_error) +
                     "; install PyTorch there or point NORMBENCH_PYTHON at a Python that has it");
  if (j.contains("package_error"))
    throw UsageError(who + " cannot import normbench_torch: " + shown(package_error) +
                     "; `pip install ./python` from normbench's source tree installs it");
  return s;
}

PythonSetup find_python(const std::string& what, std::chrono::seconds timeout) {
  const char* chosen = std::getenv("NORMBENCH_PYTHON");
  const std::string interpreter = chosen && *chosen ? chosen : "python3";
  const std::string here = program_folder();
  const Captured c = run_captured({interpreter, "-c", kProbe, NORMBENCH_PYTHON_PACKAGE_DIR,
                                   here + "/../python", here + "/../share/normbench/python"},
                                  timeout);
  const std::string who = what + " needs Python with PyTorch: " + shown(interpreter);
  if (c.timed_out)
    throw UsageError(who + " did not answer normbench's probe within " +
                     std::to_string(timeout.count()) +
                     " s and was stopped (does importing torch hang there?)");
  if (c.overflowed)
    throw UsageError(who +
                     " printed more than 1 MiB in answer to normbench's probe and was "
                     "stopped (is it a Python 3?)");
  // 127: the shell's and posix_spawn's "could not execute" (no such file, not executable).
  if (c.status == -1 || (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 127))
    throw UsageError(what + " needs Python with PyTorch: cannot run " + shown(interpreter) +
                     " (set NORMBENCH_PYTHON to a python3 that has PyTorch)");
  if (WIFSIGNALED(c.status))
    throw UsageError(who + " was killed by signal " + std::to_string(WTERMSIG(c.status)) +
                     " while running normbench's probe");
  if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0)
    throw UsageError(who + " failed to run normbench's probe (exit status " +
                     std::to_string(WIFEXITED(c.status) ? WEXITSTATUS(c.status) : -1) + ")");
  return python_setup_from(c.out, interpreter, what);
}

}  // namespace normbench
