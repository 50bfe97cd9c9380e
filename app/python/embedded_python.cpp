#include "app/python/embedded_python.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>

#include "app/util/errors.hpp"

namespace normbench {

namespace {

// The few functions of Python's stable C API that the bridge needs, found with dlsym.
using PyObject = void;
using PySsize = long;
struct PythonApi {
  void (*initialize_ex)(int) = nullptr;
  int (*run_simple_string_flags)(const char*, void*) = nullptr;
  PyObject* (*import_module)(const char*) = nullptr;
  PyObject* (*get_attr_string)(PyObject*, const char*) = nullptr;
  PyObject* (*unicode_from_string_and_size)(const char*, PySsize) = nullptr;
  const char* (*unicode_as_utf8_and_size)(PyObject*, PySsize*) = nullptr;
  PyObject* (*call_function_obj_args)(PyObject*, ...) = nullptr;
  void (*dec_ref)(PyObject*) = nullptr;
  PyObject* (*err_occurred)() = nullptr;
  void (*err_print)() = nullptr;
  int (*gil_ensure)() = nullptr;
  void (*gil_release)(int) = nullptr;
  void* (*save_thread)() = nullptr;
};

struct Interpreter {
  PythonApi api;
  PyObject* bridge = nullptr;
};

template <typename F>
void find(void* library, F& function, const char* name, const std::string& path) {
  function = reinterpret_cast<F>(dlsym(library, name));
  if (!function) throw RuntimeError(path + " has no " + name + ": not a CPython 3 libpython");
}

Interpreter start(const PythonSetup& setup) {
  // Before loading: the standard library of the Python whose library this is, and the module
  // path it reported (a virtual environment's site-packages, normbench_torch's folder).
  setenv("PYTHONHOME", setup.home.c_str(), 1);
  unsetenv("PYTHONPATH");
  const nlohmann::json settings = {{"path", setup.path}, {"executable", setup.executable}};
  setenv("NORMBENCH_PYTHON_SETTINGS", settings.dump().c_str(), 1);
  // RTLD_GLOBAL: extension modules (torch's) resolve Python's symbols from it.
  void* library = dlopen(setup.library.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!library) throw RuntimeError("cannot load " + setup.library + ": " + std::string(dlerror()));
  Interpreter in;
  PythonApi& a = in.api;
  const std::string& path = setup.library;
  find(library, a.initialize_ex, "Py_InitializeEx", path);
  find(library, a.run_simple_string_flags, "PyRun_SimpleStringFlags", path);
  find(library, a.import_module, "PyImport_ImportModule", path);
  find(library, a.get_attr_string, "PyObject_GetAttrString", path);
  find(library, a.unicode_from_string_and_size, "PyUnicode_FromStringAndSize", path);
  find(library, a.unicode_as_utf8_and_size, "PyUnicode_AsUTF8AndSize", path);
  find(library, a.call_function_obj_args, "PyObject_CallFunctionObjArgs", path);
  find(library, a.dec_ref, "Py_DecRef", path);
  find(library, a.err_occurred, "PyErr_Occurred", path);
  find(library, a.err_print, "PyErr_Print", path);
  find(library, a.gil_ensure, "PyGILState_Ensure", path);
  find(library, a.gil_release, "PyGILState_Release", path);
  find(library, a.save_thread, "PyEval_SaveThread", path);
  a.initialize_ex(0);  // 0: no signal handlers; the harness's watchdog kills a hung worker
  const int failed = a.run_simple_string_flags(
      "import json, os, sys\n"
      "settings = json.loads(os.environ.pop('NORMBENCH_PYTHON_SETTINGS'))\n"
      "sys.path[:] = settings['path']\n"
      "sys.executable = settings['executable']\n"
      "sys.argv = ['normbench']\n",
      nullptr);
  if (failed) throw RuntimeError("Python " + setup.version + " did not start (" + path + ")");
  in.bridge = a.import_module("normbench_torch.bridge");
  if (!in.bridge) {
    a.err_print();  // to the worker's stderr, the details behind this message
    throw RuntimeError("Python " + setup.version + " cannot import normbench_torch.bridge");
  }
  a.save_thread();  // the GIL is taken per call: threads of the candidates' own may run between
  return in;
}

}  // namespace

std::string call_python_bridge(const PythonSetup& setup, const char* function,
                               const std::string& argument) {
  static std::once_flag once;
  static Interpreter in;
  static std::string start_error;
  std::call_once(once, [&] {
    try {
      in = start(setup);
    } catch (const std::exception& e) {
      start_error = e.what();
    }
  });
  if (!start_error.empty()) throw RuntimeError(start_error);
  const PythonApi& a = in.api;
  const int gil = a.gil_ensure();
  std::string result, error;
  PyObject* callable = a.get_attr_string(in.bridge, function);
  PyObject* text =
      a.unicode_from_string_and_size(argument.data(), static_cast<PySsize>(argument.size()));
  PyObject* answer = callable && text ? a.call_function_obj_args(callable, text, nullptr) : nullptr;
  PySsize size = 0;
  const char* utf8 = answer ? a.unicode_as_utf8_and_size(answer, &size) : nullptr;
  if (utf8)
    result.assign(utf8, static_cast<size_t>(size));
  else
    error = std::string("normbench_torch.bridge.") + function + " raised or returned no str";
  if (a.err_occurred()) a.err_print();
  for (PyObject* o : {answer, text, callable})
    if (o) a.dec_ref(o);
  a.gil_release(gil);
  if (!error.empty()) throw RuntimeError(error);
  return result;
}

}  // namespace normbench
