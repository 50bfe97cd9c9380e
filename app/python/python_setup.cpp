#include "app/python/python_setup.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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
    answer["package_error"] = "%s: %s" % (type(e).__name__, e)
try:
    import torch
    answer["torch"] = torch.__version__
except Exception as e:
    answer["torch_error"] = "%s: %s" % (type(e).__name__, e)
answer["path"] = path
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

struct Captured {
  int status = -1;  // waitpid's
  std::string out;
};

// Runs argv[0] (looked up on PATH) and captures its stdout; stderr goes to ours' sink.
Captured run_captured(const std::vector<std::string>& args) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw RuntimeError("cannot make a pipe to run Python");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", 0, 0);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  Captured c;
  if (spawned != 0) {
    close(pipe_fds[0]);
    return c;
  }
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(pipe_fds[0], buffer, sizeof(buffer))) > 0 && c.out.size() < (1u << 20))
    c.out.append(buffer, static_cast<size_t>(n));
  close(pipe_fds[0]);
  waitpid(pid, &c.status, 0);
  return c;
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
  PythonSetup s;
  s.executable = j.value("executable", "");
  s.home = j.value("home", "");
  s.version = j.value("version", "");
  s.path = j.at("path").get<std::vector<std::string>>();
  if (!j.contains("library"))
    throw UsageError(who + " (Python " + s.version +
                     ") has no shared libpython, which normbench's worker loads; use a Python "
                     "built with --enable-shared (a distribution's python3 is) through "
                     "NORMBENCH_PYTHON");
  s.library = j.at("library");
  if (j.contains("torch_error"))
    throw UsageError(who +
                     " cannot import torch: " + shown(j.at("torch_error").get<std::string>()) +
                     "; install PyTorch there or point NORMBENCH_PYTHON at a Python that has it");
  s.torch_version = j.value("torch", "");
  if (j.contains("package_error"))
    throw UsageError(
        who + " cannot import normbench_torch: " + shown(j.at("package_error").get<std::string>()) +
        "; `pip install ./python` from normbench's source tree installs it");
  return s;
}

PythonSetup find_python(const std::string& what) {
  const char* chosen = std::getenv("NORMBENCH_PYTHON");
  const std::string interpreter = chosen && *chosen ? chosen : "python3";
  const std::string here = program_folder();
  const Captured c = run_captured({interpreter, "-c", kProbe, NORMBENCH_PYTHON_PACKAGE_DIR,
                                   here + "/../python", here + "/../share/normbench/python"});
  // 127: the shell's and posix_spawn's "could not execute" (no such file, not executable).
  if (c.status == -1 || (WIFEXITED(c.status) && WEXITSTATUS(c.status) == 127))
    throw UsageError(what + " needs Python with PyTorch: cannot run " + shown(interpreter) +
                     " (set NORMBENCH_PYTHON to a python3 that has PyTorch)");
  if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0)
    throw UsageError(what + " needs Python with PyTorch: " + shown(interpreter) +
                     " failed to run normbench's probe (exit status " +
                     std::to_string(WIFEXITED(c.status) ? WEXITSTATUS(c.status) : -1) + ")");
  return python_setup_from(c.out, interpreter, what);
}

}  // namespace normbench
