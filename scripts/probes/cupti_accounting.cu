// What CUPTI's activity API tells about the device work of one launch call, and what tracing
// costs the event-timed medians. Not part of normbench: a probe for the accounting of every
// device operation (app/worker/activity_trace.hpp) and kernels/NOTES.md.
//   1. Records of seven kinds of launch calls (the given stream, a stream of its own, the legacy
//      default stream, the per-thread default stream, a host thread launching after the call
//      returned, a fork/join over two streams with events, a copy and a memset on another
//      stream): each operation's stream, correlation and external correlation ids, the event
//      records and stream waits with their sync ids.
//   2. Overhead: medians of a 2 us kernel and a 268 MB copy (PROBE_MEMSET: each after a memset
//      of 64 bytes), L2 evicted before each sample, with tracing off and on in alternating
//      blocks; and the host cost of flushing the records. PROBE_KINDS picks the kinds traced.
//
//   nvcc -O3 -arch=sm_90 -o cupti_accounting scripts/probes/cupti_accounting.cu -lcupti \
//        -L/usr/local/cuda/lib64 && ./cupti_accounting
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "probe_check.cuh"

#define CUPTI(call)                                                                     \
  do {                                                                                  \
    CUptiResult r_ = (call);                                                            \
    if (r_ != CUPTI_SUCCESS) {                                                          \
      const char* s_ = nullptr;                                                         \
      cuptiGetResultString(r_, &s_);                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, s_ ? s_ : "?"); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

namespace {

struct Record {
  std::string text;
};
std::mutex g_mutex;
std::vector<std::string> g_lines;
uint64_t g_base = 0;
size_t g_records = 0;
bool g_print = true;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8 << 20;
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    ++g_records;
    if (!g_print) continue;
    char line[512];
    line[0] = 0;
    auto rel = [](uint64_t t) { return t ? (double)(t - g_base) / 1000.0 : -1.0; };
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(record);
        std::snprintf(line, sizeof line,
                      "kernel   corr %u stream %u %.40s  %.2f..%.2f us (%.2f us) graph %llu",
                      k->correlationId, k->streamId, k->name, rel(k->start), rel(k->end),
                      (k->end - k->start) / 1e3, (unsigned long long)k->graphId);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(record);
        std::snprintf(line, sizeof line, "memcpy   corr %u stream %u kind %u %llu B %.2f..%.2f us",
                      m->correlationId, m->streamId, m->copyKind, (unsigned long long)m->bytes,
                      rel(m->start), rel(m->end));
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto* m = reinterpret_cast<CUpti_ActivityMemset4*>(record);
        std::snprintf(line, sizeof line, "memset   corr %u stream %u %llu B %.2f..%.2f us",
                      m->correlationId, m->streamId, (unsigned long long)m->bytes, rel(m->start),
                      rel(m->end));
        break;
      }
      case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
        auto* e = reinterpret_cast<CUpti_ActivityCudaEvent2*>(record);
        std::snprintf(line, sizeof line,
                      "event    corr %u stream %u event %u sync %llu dev %.2f us", e->correlationId,
                      e->streamId, e->eventId, (unsigned long long)e->cudaEventSyncId,
                      rel(e->deviceTimestamp));
        break;
      }
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        auto* s = reinterpret_cast<CUpti_ActivitySynchronization2*>(record);
        std::snprintf(line, sizeof line, "sync     corr %u type %d stream %u event %u sync %llu",
                      s->correlationId, (int)s->type, s->streamId, s->cudaEventId,
                      (unsigned long long)s->cudaEventSyncId);
        break;
      }
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        auto* x = reinterpret_cast<CUpti_ActivityExternalCorrelation*>(record);
        std::snprintf(line, sizeof line, "external corr %u -> %llu", x->correlationId,
                      (unsigned long long)x->externalId);
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME:
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        auto* a = reinterpret_cast<CUpti_ActivityAPI*>(record);
        std::snprintf(line, sizeof line, "%s corr %u cbid %u thread %u",
                      record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? "runtime " : "driver  ",
                      a->correlationId, a->cbid, a->threadId);
        break;
      }
      default:
        std::snprintf(line, sizeof line, "kind %d", (int)record->kind);
    }
    g_lines.push_back(line);
  }
  free(buffer);
}

const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                     CUPTI_ACTIVITY_KIND_MEMCPY,
                                     CUPTI_ACTIVITY_KIND_MEMSET,
                                     CUPTI_ACTIVITY_KIND_CUDA_EVENT,
                                     CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                     CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

// PROBE_KINDS: a mask over kKinds (bit i enables kKinds[i]) for the overhead blocks; all by
// default.
unsigned g_mask = ~0u;
void tracing(bool on) {
  int i = -1;
  for (CUpti_ActivityKind k : kKinds) {
    ++i;
    if (!(g_mask & (1u << i))) continue;
    if (on)
      CUPTI(cuptiActivityEnable(k));
    else
      CUPTI(cuptiActivityDisable(k));
  }
}

__global__ void spin(long long cycles, float* out) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  if (threadIdx.x == 0 && out) out[blockIdx.x] = 1.0f;
}

__global__ void copy(const float4* in, float4* out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}

__global__ void evict(const float4* in, size_t n, unsigned* sink) {
  float acc = 0.f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    acc += in[i].x;
  if (acc == 12345.f) *sink = 1;
}

void flush_and_print(const char* title) {
  CHECK(cudaDeviceSynchronize());
  std::printf("   device done\n");
  CUPTI(cuptiActivityFlushAll(1));
  std::printf("   flushed\n");
  std::lock_guard<std::mutex> lock(g_mutex);
  std::printf("== %s\n", title);
  for (const auto& l : g_lines) std::printf("  %s\n", l.c_str());
  g_lines.clear();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string only = argc > 1 ? argv[1] : "";
  const bool runtime_kind = std::getenv("PROBE_RUNTIME_KIND") != nullptr;
  const bool stream_ids = std::getenv("PROBE_NO_STREAM_IDS") == nullptr;
  CUPTI(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
  CUPTI(cuptiActivityEnableCudaEventDeviceTimestamps(1));
  tracing(true);
  if (runtime_kind) CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME));
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));
  CUPTI(cuptiGetTimestamp(&g_base));

  cudaStream_t given, other;
  CHECK(cudaStreamCreateWithFlags(&given, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  CUcontext ctx;
  cuCtxGetCurrent(&ctx);
  uint32_t given_id = 0, other_id = 0, legacy_id = 0, per_thread_id = 0;
  CUPTI(cuptiGetStreamIdEx(ctx, (CUstream)given, 0, &given_id));
  CUPTI(cuptiGetStreamIdEx(ctx, (CUstream)other, 0, &other_id));
  if (stream_ids) {
    CUPTI(cuptiGetStreamIdEx(ctx, (CUstream)0, 0, &legacy_id));
    CUPTI(cuptiGetStreamIdEx(ctx, (CUstream)cudaStreamPerThread, 1, &per_thread_id));
  }
  std::printf("stream ids: given %u other %u legacy %u per-thread %u\n", given_id, other_id,
              legacy_id, per_thread_id);

  float* out;
  CHECK(cudaMalloc(&out, 1 << 20));
  cudaEvent_t start, stop, fork, join;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  const long long two_us = 3500;  // about 2 us at 1.7 GHz

  auto scenario = [&](const char* title, uint64_t id, auto&& launch) {
    if (!only.empty() && only != std::to_string(id)) return;
    std::printf("-- %s\n", title);
    CHECK(cudaEventRecord(start, given));
    CUPTI(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id));
    launch();
    std::printf("   launched\n");
    CUPTI(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr));
    CHECK(cudaEventRecord(stop, given));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    CHECK(cudaStreamSynchronize(given));
    std::printf("   given stream done\n");
    flush_and_print(title);
  };
  scenario("given stream", 1, [&] { spin<<<1, 32, 0, given>>>(two_us, out); });
  scenario("a stream of its own (created in the call)", 2, [&] {
    cudaStream_t own;
    cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking);
    spin<<<1, 32, 0, own>>>(two_us, out);
    cudaStreamDestroy(own);
  });
  scenario("legacy default stream", 3, [&] { spin<<<1, 32, 0, 0>>>(two_us, out); });
  scenario("per-thread default stream", 4,
           [&] { spin<<<1, 32, 0, cudaStreamPerThread>>>(two_us, out); });
  scenario("host thread launching after the call returned", 5, [&] {
    std::thread([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      spin<<<1, 32, 0, given>>>(two_us, out);
    }).detach();
  });
  scenario("fork/join with events", 6, [&] {
    cudaEventRecord(fork, given);
    cudaStreamWaitEvent(other, fork, 0);
    spin<<<1, 32, 0, other>>>(two_us, out);
    spin<<<1, 32, 0, given>>>(two_us, out + 64);
    cudaEventRecord(join, other);
    cudaStreamWaitEvent(given, join, 0);
  });
  scenario("copy and memset on another stream", 7, [&] {
    cudaMemcpyAsync(out + 1024, out, 4096, cudaMemcpyDeviceToDevice, other);
    cudaMemsetAsync(out + 4096, 0, 4096, other);
  });
  scenario("a graph launched on the given stream", 8, [&] {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStream_t cap;
    cudaStreamCreateWithFlags(&cap, cudaStreamNonBlocking);
    cudaStreamBeginCapture(cap, cudaStreamCaptureModeThreadLocal);
    spin<<<1, 32, 0, cap>>>(two_us, out);
    cudaStreamEndCapture(cap, &graph);
    cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphLaunch(exec, given);
  });

  if (only != "overhead") return 0;
  tracing(false);
  if (const char* m = std::getenv("PROBE_KINDS")) g_mask = std::strtoul(m, nullptr, 0);
  if (std::getenv("PROBE_NO_EVENT_TIMESTAMPS"))
    CUPTI(cuptiActivityEnableCudaEventDeviceTimestamps(0));
  std::printf("kinds mask 0x%x, runtime kind %d\n", g_mask, (int)runtime_kind);
  // Overhead on event-timed medians.
  g_print = false;
  const size_t copy_bytes = 268ull << 20, evict_bytes = 100ull << 20;
  float4 *a, *b, *e;
  unsigned* sink;
  CHECK(cudaMalloc(&a, copy_bytes));
  CHECK(cudaMalloc(&b, copy_bytes));
  CHECK(cudaMalloc(&e, evict_bytes));
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMemset(a, 0, copy_bytes));
  CHECK(cudaMemset(e, 0, evict_bytes));
  auto sample = [&](bool big, bool flush, double* host_us) {
    evict<<<132 * 4, 512, 0, given>>>(e, evict_bytes / 16, sink);
    CHECK(cudaEventRecord(start, given));
    if (std::getenv("PROBE_MEMSET")) CHECK(cudaMemsetAsync(out, 0, 64, given));
    if (big)
      copy<<<132 * 4, 512, 0, given>>>(a, b, copy_bytes / 16);
    else
      spin<<<132, 128, 0, given>>>(two_us, out);
    CHECK(cudaEventRecord(stop, given));
    CHECK(cudaStreamSynchronize(given));
    const auto t0 = std::chrono::steady_clock::now();
    CHECK(cudaDeviceSynchronize());
    if (flush) CUPTI(cuptiActivityFlushAll(1));
    *host_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    return (double)ms * 1000.0;
  };
  {
    const auto t0 = std::chrono::steady_clock::now();
    CUPTI(cuptiActivityFlushAll(1));
    std::printf(
        "one forced flush: %.1f us\n",
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    const auto t1 = std::chrono::steady_clock::now();
    CUPTI(cuptiActivityFlushAll(0));
    std::printf(
        "one plain flush: %.1f us\n",
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t1).count());
  }
  for (int block = 0; block < 2; ++block) {
    const bool on = block % 2 == 1;
    tracing(on);
    for (bool big : {false, true}) {
      std::vector<double> us, host;
      for (int i = 0; i < 100; ++i) {
        double h;
        us.push_back(sample(big, on, &h));
        host.push_back(h);
      }
      std::printf(
          "block %d tracing %-3s %-10s median %.3f us  min %.3f  (drain+flush median %.1f us)\n",
          block, on ? "on" : "off", big ? "copy 268MB" : "spin 2us", median(us),
          *std::min_element(us.begin(), us.end()), median(host));
    }
  }
  CUPTI(cuptiActivityFlushAll(1));
  std::printf("records seen: %zu\n", g_records);
  return 0;
}
