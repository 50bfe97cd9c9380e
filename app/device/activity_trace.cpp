#include "app/device/activity_trace.hpp"

#include <cupti.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

namespace normbench::activity_trace {

namespace {

// The CUPTI functions used, looked up in the library loaded at run time.
struct Cupti {
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivitySetAttribute) set_attribute = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) dropped_records = nullptr;
  decltype(&cuptiActivityPushExternalCorrelationId) push_mark = nullptr;
  decltype(&cuptiActivityPopExternalCorrelationId) pop_mark = nullptr;
  decltype(&cuptiGetStreamIdEx) stream_id = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
};

constexpr CUpti_ExternalCorrelationKind kMarkKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
constexpr size_t kBufferBytes = 4 << 20;

Cupti cupti;
bool tracing = false;
uint64_t last_serial = 0;
std::mutex records_mutex;  // CUPTI hands buffers over from its own thread too
ActivityLog records;

const char* const kLibraryNames[] = {"libcupti.so.13", "libcupti.so",
#ifdef NORMBENCH_CUPTI_LIBRARY
                                     NORMBENCH_CUPTI_LIBRARY,
#endif
                                     "/usr/local/cuda/lib64/libcupti.so",
                                     "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"};

std::optional<std::string> load() {
  void* library = nullptr;
  for (const char* name : kLibraryNames)
    if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  if (!library) return std::string("libcupti (the CUDA toolkit's tracing library) was not found");
  bool complete = true;
  auto find = [&](auto& function, const char* symbol) {
    function =
        reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(library, symbol));
    complete = complete && function;
  };
  find(cupti.register_callbacks, "cuptiActivityRegisterCallbacks");
  find(cupti.enable, "cuptiActivityEnable");
  find(cupti.set_attribute, "cuptiActivitySetAttribute");
  find(cupti.flush_all, "cuptiActivityFlushAll");
  find(cupti.next_record, "cuptiActivityGetNextRecord");
  find(cupti.dropped_records, "cuptiActivityGetNumDroppedRecords");
  find(cupti.push_mark, "cuptiActivityPushExternalCorrelationId");
  find(cupti.pop_mark, "cuptiActivityPopExternalCorrelationId");
  find(cupti.stream_id, "cuptiGetStreamIdEx");
  find(cupti.result_string, "cuptiGetResultString");
  if (!complete) return std::string("libcupti lacks functions normbench uses (an older CUPTI)");
  return std::nullopt;
}

std::string describe(const char* call, CUptiResult result) {
  const char* text = nullptr;
  if (cupti.result_string) cupti.result_string(result, &text);
  return std::string(call) + " failed: " + (text ? text : "unknown CUPTI error");
}

const char* copy_direction(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    default:
      return "array";
  }
}

// Keeps what the accounting reads of one record.
void keep(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      records.operations.push_back({OperationKind::kernel, k->name ? k->name : "", k->streamId,
                                    k->correlationId, k->start, k->end, 0});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      records.operations.push_back({OperationKind::memcpy, copy_direction(m->copyKind), m->streamId,
                                    m->correlationId, m->start, m->end, m->bytes});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      records.operations.push_back(
          {OperationKind::memset, "", m->streamId, m->correlationId, m->start, m->end, m->bytes});
      break;
    }
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
      const auto* e = reinterpret_cast<const CUpti_ActivityCudaEvent2*>(record);
      records.event_records.push_back({e->correlationId, e->streamId, e->cudaEventSyncId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
      if (s->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT)
        records.stream_waits.push_back({s->correlationId, s->streamId, s->cudaEventSyncId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto* x = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      if (x->externalKind == kMarkKind) records.marks[x->correlationId] = x->externalId;
      break;
    }
    default:  // the runtime API's records: only needed for the marks
      break;
  }
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t,
                               size_t valid) {
  {
    std::lock_guard<std::mutex> lock(records_mutex);
    CUpti_Activity* record = nullptr;
    while (cupti.next_record(buffer, valid, &record) == CUPTI_SUCCESS) keep(record);
    size_t dropped = 0;
    if (cupti.dropped_records(context, stream, &dropped) == CUPTI_SUCCESS)
      records.dropped_records += dropped;
  }
  std::free(buffer);
}

}  // namespace

std::optional<std::string> start() {
  // Off on request: another tool (nsys, ncu) may want CUPTI to itself.
  if (const char* off = std::getenv("NORMBENCH_ACTIVITY_TRACE"); off && std::string(off) == "off")
    return std::string("turned off (NORMBENCH_ACTIVITY_TRACE=off)");
  if (auto why = load()) return why;
  // One buffer for all threads: with per-thread buffers (CUPTI 13's default) the records of a
  // thread a kernel leaves behind may stay in that thread's buffer.
  uint8_t per_thread = 0;
  size_t per_thread_size = sizeof(per_thread);
  if (CUptiResult r = cupti.set_attribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER,
                                          &per_thread_size, &per_thread);
      r != CUPTI_SUCCESS)
    return describe("cuptiActivitySetAttribute", r);
  if (CUptiResult r = cupti.register_callbacks(buffer_requested, buffer_completed);
      r != CUPTI_SUCCESS)
    return describe("cuptiActivityRegisterCallbacks", r);
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
        CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_CUDA_EVENT,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION})
    if (CUptiResult r = cupti.enable(kind); r != CUPTI_SUCCESS)
      return describe("cuptiActivityEnable", r);
  if (CUptiResult r = cupti.push_mark(kMarkKind, make_mark(0, MarkRole::harness));
      r != CUPTI_SUCCESS)
    return describe("cuptiActivityPushExternalCorrelationId", r);
  tracing = true;
  return std::nullopt;
}

bool available() {
  return tracing;
}

TracedStreams traced_streams(cudaStream_t given) {
  TracedStreams s;
  if (!tracing) return s;
  // The default streams are the context's: CUPTI resolves them only with the context named.
  // The driver's cuCtxGetCurrent, from the libcuda the runtime loaded (normbench links the
  // runtime statically and the driver not at all).
  CUcontext context = nullptr;
  if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD))
    if (auto current = reinterpret_cast<CUresult (*)(CUcontext*)>(dlsym(driver, "cuCtxGetCurrent")))
      current(&context);
  cupti.stream_id(context, reinterpret_cast<CUstream>(given), 0, &s.given);
  cupti.stream_id(context, nullptr, 0, &s.legacy);
  cupti.stream_id(context, reinterpret_cast<CUstream>(cudaStreamPerThread), 1, &s.per_thread);
  return s;
}

Mark::Mark(uint64_t mark) {
  if (tracing) cupti.push_mark(kMarkKind, mark);
}

Mark::~Mark() {
  if (tracing) cupti.pop_mark(kMarkKind, nullptr);
}

uint64_t next_launch_serial() {
  return ++last_serial;
}

ActivityLog collect() {
  if (!tracing) return {};
  cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(records_mutex);
  ActivityLog log = std::move(records);
  records = ActivityLog{};
  return log;
}

}  // namespace normbench::activity_trace
