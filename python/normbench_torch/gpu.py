"""The GPU side of the PyTorch runs: the device, the L2 evictor (as normbench's:
app/device/device_checks.cu) and the timing loop (as app/timing/kernel_timer.cpp)."""

import gc
import time

from .timing import stop_reason, summarize


def cuda_driver_version():
    """cuDriverGetVersion (13000 = 13.0), as normbench reports it; None if libcuda says nothing."""
    import ctypes
    try:
        version = ctypes.c_int(0)
        if ctypes.CDLL("libcuda.so.1").cuDriverGetVersion(ctypes.byref(version)) == 0:
            return version.value
    except (OSError, AttributeError):
        pass
    return None


def device_busy_after_us(torch):
    """Called once the timed stream has finished: how long the rest of the device stayed busy
    (microseconds), i.e. work the call left on other streams. A synchronize costs Python and
    the driver tens of microseconds with nothing left to wait for (37-67 us after 8 ms calls,
    checks.py; a 51 us median once on the H100 for PyTorch's own rms_norm, over the 50 us
    allowance), so the same wait on the then idle device is measured right after and
    subtracted; work left on another stream still shows in full."""
    began = time.perf_counter()
    torch.cuda.synchronize()
    drained = time.perf_counter()
    torch.cuda.synchronize()
    idle = time.perf_counter() - drained
    return max(0.0, (drained - began - idle) * 1e6)


class Gpu:
    """The device, its stream and the L2 evictor (app/timing/kernel_timer.cpp)."""

    def __init__(self, torch, index, hold=True):
        self.torch = torch
        self.hold_cycles = 2000000 if hold and hasattr(torch.cuda, "_sleep") else 0
        self.device = torch.device("cuda", index)
        torch.cuda.set_device(self.device)
        self.props = torch.cuda.get_device_properties(self.device)
        self.l2_bytes = getattr(self.props, "L2_cache_size", 0) or 0
        evict_bytes = 2 * max(self.l2_bytes or (64 << 20), 1 << 20)  # 64 MiB if torch cannot tell
        self.evict_buffer = torch.zeros(evict_bytes // 4, dtype=torch.float32, device=self.device)
        self.sink = torch.empty((), dtype=torch.float32, device=self.device)
        self._evict_kernels = self._load_evict_kernels()
        self.l2_eviction = ("evict-last read + discard (as normbench)" if self._evict_kernels
                            else "plain read (CuPy missing)")
        torch.cuda.synchronize()

    def evict_l2(self):
        # As normbench (app/device/device_checks.cu): read every byte at L2 evict-last priority,
        # which pushes out every line, evict-last ones included (Inductor's kernels load
        # reused data with evict-last hints), then discard the buffer's lines so the timed
        # call starts with an empty L2 and pays no write-backs. Falls back to a plain read
        # (a sum) where CuPy is missing; `l2_eviction` in the report says which ran.
        if self._evict_kernels:
            read, discard = self._evict_kernels
            stream = self._cupy.cuda.ExternalStream(self.torch.cuda.current_stream().cuda_stream)
            count = self.evict_buffer.numel() * 4 // 16
            with stream:
                read((4096,), (256,), (self.evict_buffer.data_ptr(), self._cupy.uint64(count),
                                       self.sink.data_ptr()))
                discard((4096,), (256,), (self.evict_buffer.data_ptr(), self._cupy.uint64(count * 16)))
        else:
            self.torch.sum(self.evict_buffer, 0, out=self.sink)

    def _load_evict_kernels(self):
        try:
            import cupy
        except ImportError:
            return None
        source = r"""
        extern "C" __global__ void read_evict_last(const uint4* data, unsigned long long count,
                                                   unsigned* sink) {
          unsigned acc = 0;
          unsigned long long policy;
          asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
          for (unsigned long long i = blockIdx.x * 256ull + threadIdx.x; i < count;
               i += gridDim.x * 256ull) {
            uint4 v;
            asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                         : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(data + i), "l"(policy));
            acc ^= v.x ^ v.y ^ v.z ^ v.w;
          }
          if (acc == 0x9e3779b9u) *sink = acc;
        }
        extern "C" __global__ void discard_all(const char* data, unsigned long long bytes) {
          for (unsigned long long offset = (blockIdx.x * 256ull + threadIdx.x) * 128; offset < bytes;
               offset += gridDim.x * 256ull * 128)
            asm volatile("discard.global.L2 [%0], 128;" :: "l"(data + offset) : "memory");
        }
        """
        module = cupy.RawModule(code=source)
        self._cupy = cupy
        return module.get_function("read_evict_last"), module.get_function("discard_all")

    def hold(self):
        """Keeps the GPU busy for about a millisecond, so that the call after it is queued
        before the GPU reaches the start event: the events then time the GPU work, not
        Python's dispatch (normbench's C++ launches are queued while the eviction still runs)."""
        if self.hold_cycles:
            self.torch.cuda._sleep(self.hold_cycles)

    def time_calls(self, call, timing, after_sample=None):
        """Samples of `call` (warmup first), each with L2 evicted, the GPU held, CUDA events
        around the call, and then the device drained: how long the whole device stayed busy
        after the timed stream finished is the sample's escaped work. `after_sample(i, result)`
        checks each sample's result outside the timed region. Returns (summary, escaped_us)."""
        torch = self.torch
        for _ in range(timing["warmup"]):
            call()
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        samples, escaped, began = [], [], time.perf_counter()
        collecting = gc.isenabled()
        gc.disable()  # no collector pause inside a sample
        try:
            while True:
                if timing["flush_l2"]:
                    self.evict_l2()
                self.hold()
                start.record()
                result = call()
                stop.record()
                stop.synchronize()
                escaped.append(device_busy_after_us(torch))
                samples.append(float(start.elapsed_time(stop)))
                if after_sample:
                    after_sample(len(samples) - 1, result)
                del result
                elapsed = time.perf_counter() - began
                reason = stop_reason(samples, elapsed, timing)
                if reason != "keep_sampling":
                    return summarize(samples, reason, elapsed), escaped
        finally:
            if collecting:
                gc.enable()

    def copy_bandwidth(self):
        torch = self.torch
        free, _ = torch.cuda.mem_get_info(self.device)
        nbytes = min(1 << 30, free // 4) & ~255
        src = torch.full((nbytes,), 0x5A, dtype=torch.uint8, device=self.device)
        dst = torch.empty_like(src)
        timing = {"warmup": 5, "min_samples": 10, "max_noise": 0.005, "max_time_s": 2.0,
                  "flush_l2": True}
        t, _ = self.time_calls(lambda: dst.copy_(src), timing)
        return {"bytes_moved": 2 * nbytes, "gb_per_s": 2 * nbytes / (t["median_ms"] * 1e6), "timing": t}

    def info(self, index):
        p, torch = self.props, self.torch
        cuda = torch.version.cuda or ""
        runtime = int(cuda.split(".")[0]) * 1000 + int(cuda.split(".")[1]) * 10 if cuda.count(".") >= 1 else None
        driver = cuda_driver_version()
        return {"index": index, "name": p.name, "sm_count": p.multi_processor_count,
                "compute_capability": "%d.%d" % (p.major, p.minor), "memory_bytes": p.total_memory,
                "l2_bytes": self.l2_bytes or None,
                "memory_clock_khz": getattr(p, "memory_clock_rate", None),
                "memory_bus_width_bits": getattr(p, "memory_bus_width", None),
                "driver_version": driver, "runtime_version": runtime}
