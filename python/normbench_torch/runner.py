"""One problem, end to end, for the candidates of candidates.py: inputs, the float64 reference,
each candidate's trials, then for those that passed a second call (determinism) and the timing
with its checks. The checks are normbench's where Python allows them (README, threat model):
every trial's output verified; inputs fingerprinted; each call's output must be a float32
tensor of x's shape on x's device; work left running outside the current stream is measured
(the device must drain within 50 us of the stream finishing); every timed sample's output is
compared bitwise with the verified one (deterministic candidates) or two samples are verified
(the others); a median faster than the copy floor fails. A CUDA fault cannot be survived in
one Python process: it ends the run, and the candidates not yet run are `not_run`."""

import random
import sys

from .inputs import CHUNK, fill_inputs
from .verify import failure_summary, fingerprint, verify, violation_summary

ESCAPED_WORK_LIMIT_US = 50.0  # as app/check/integrity.hpp
COPY_FLOOR_MARGIN = 0.10


class Context:
    def __init__(self, torch, gpu, backend, copy, from_tensors=None, allow_faster_than_copy=False):
        self.torch, self.gpu, self.backend, self.copy = torch, gpu, backend, copy
        self.from_tensors = from_tensors
        self.allow_faster_than_copy = allow_faster_than_copy


def progress(message):
    sys.stderr.write("normbench_torch: %s\n" % message)
    sys.stderr.flush()


def is_cuda_failure(error):
    """A failure that leaves the CUDA context unusable (not an out-of-memory)."""
    text = str(error)
    return ("CUDA error" in text or "illegal memory access" in text) and "out of memory" not in text


def output_problem(torch, y, x):
    """Why a candidate's return value is not an output for x, or None."""
    if not isinstance(y, torch.Tensor):
        return "returned %s, not a torch.Tensor" % type(y).__name__
    if tuple(y.shape) != tuple(x.shape):
        return "returned shape %s, expected %s" % (list(y.shape), list(x.shape))
    if y.dtype != x.dtype:
        return "returned dtype %s, expected %s" % (y.dtype, x.dtype)
    if y.device != x.device:
        return "returned a tensor on %s, expected %s" % (y.device, x.device)
    return None


def escaped_work_us(torch):
    """Waits for the current stream, then for the whole device: how long the second wait took
    (microseconds) is the work the call left on other streams."""
    import time
    torch.cuda.current_stream().synchronize()
    done = time.perf_counter()
    torch.cuda.synchronize()
    return (time.perf_counter() - done) * 1e6


def escaped_limit_us(call_ms):
    """Python's own synchronization costs more than normbench's C++ (37-67 us measured after
    8 ms calls on the H100, against 1-15 us in C++): a call may leave the device busy for 50 us
    or a tenth of its own event time, whichever is more. Work escaping to another stream
    leaves the timed call itself nearly empty, so it still shows."""
    return max(ESCAPED_WORK_LIMIT_US, 100.0 * call_ms)


def escaped_failure(us, call_ms=0.0):
    limit = escaped_limit_us(call_ms)
    if us <= limit:
        return None
    return ("left work running outside the stream it was given: the device stayed busy %.0f us "
            "after that stream finished (allowed: %.0f us)" % (us, limit))


def copy_floor_failure(median_ms, p, copy, l2_bytes):
    """As app/check/integrity.cpp: faster than the problem's DRAM bytes at the copy bandwidth,
    by more than the margin."""
    if not copy or copy["gb_per_s"] <= 0:
        return None
    beyond = lambda n: max(0, n - (l2_bytes or 0))  # noqa: E731
    flushed = p["timing"]["flush_l2"]
    dram = (p["read_bytes"] if flushed else beyond(p["read_bytes"])) + beyond(p["write_bytes"])
    floor = dram / (copy["gb_per_s"] * 1e6)
    if floor <= 0 or median_ms >= (1.0 - COPY_FLOOR_MARGIN) * floor:
        return None
    return ("median %.4g ms is faster than moving the problem's bytes through DRAM (%.1f MB at the "
            "measured copy bandwidth of %.0f GB/s take %.4g ms; allowed: down to %.0f%% of that): "
            "the bytes were not all moved, or the time is not what ran "
            "(--allow-faster-than-copy makes this a warning)"
            % (median_ms, dram / 1e6, copy["gb_per_s"], floor, 100 * (1 - COPY_FLOOR_MARGIN)))


def new_kernel(candidate, p):
    return {"id": candidate.id, "description": candidate.describe(p), "origin": candidate.origin,
            "status": "not_run", "reason": "", "trials": [], "timing": None, "checks": None,
            "deterministic": None, "instance": None, "escaped": [], "pending": False}


def fail(k, status, reason):
    k.update(status=status, reason=reason, pending=False, timing=None)


def instantiate(ctx, candidate, p, k):
    from .candidates import CandidateError, NotSupported
    try:
        k["instance"] = candidate.instantiate(ctx.torch, p)
        k["pending"] = True
    except NotSupported as e:
        fail(k, "not_supported", str(e))
    except CandidateError as e:
        fail(k, "error", str(e))
    except Exception as e:  # a submission's constructor: anything can happen
        if is_cuda_failure(e):
            raise
        fail(k, "error", "while building it: %s: %s" % (type(e).__name__, str(e).strip()[:300]))


def call_checked(ctx, k, tensors):
    """One call, timed by events and followed by the escaped-work measurement (kept in
    k["escaped"] as (us, call ms)); returns y, or raises TypeError for a wrong output."""
    torch = ctx.torch
    x, w, b = tensors["x"], tensors.get("weight"), tensors.get("bias")
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    y = k["instance"].call(x, w, b)
    stop.record()
    k["escaped"].append((escaped_work_us(torch), float(start.elapsed_time(stop))))
    problem = output_problem(torch, y, x)
    if problem:
        raise TypeError(problem)
    return y


def run_problem(ctx, p, candidates, results):
    """Runs one problem; its result is in `results` from the start, so that a run aborted by a
    CUDA failure still reports what it found."""
    torch = ctx.torch
    kernels = [new_kernel(c, p) for c in candidates]
    result = {"problem": p, "kernels": kernels, "skipped": False, "reason": ""}
    results.append(result)
    for c, k in zip(candidates, kernels):
        instantiate(ctx, c, p, k)
    reason = resource_problem(ctx, p)
    if reason:
        result.update(skipped=True, reason=reason)
        for k in kernels:
            if k["pending"]:
                fail(k, "skipped", "problem skipped: " + reason)
        return result

    device = ctx.gpu.device
    tensors = {"x": torch.empty(p["shape"], dtype=torch.float32, device=device)}
    if p["affine"]:
        for name in ("weight", "bias"):
            tensors[name] = torch.empty(p["param_shape"], dtype=torch.float32, device=device)
    prints = lambda: [fingerprint(torch, tensors.get(n)) for n in ("x", "weight", "bias")]  # noqa: E731
    last_outputs = {}
    for trial, seed in enumerate(p["seeds"]):
        progress("%s: trial %d: inputs" % (p["id"], trial))
        fill_inputs(torch, ctx.backend, ctx.from_tensors, p, trial, seed, tensors)
        before = prints()
        for k in kernels:
            if not k["pending"]:
                continue
            progress("%s: trial %d: %s" % (p["id"], trial, k["id"]))
            try:
                k["instance"].load(tensors.get("weight"), tensors.get("bias"))
                y = call_checked(ctx, k, tensors)
            except Exception as e:  # the candidate's code: raises, wrong outputs, CUDA faults
                if is_cuda_failure(e):
                    fail(k, "error", "trial %d: %s: %s" % (trial, type(e).__name__, str(e)[:300]))
                    raise
                fail(k, "error", "trial %d: %s: %s" % (trial, type(e).__name__, str(e).strip()[:300]))
                continue
            t = verify(torch, p, tensors["x"], tensors.get("weight"), tensors.get("bias"), y, trial, seed)
            t["inputs_unchanged"] = prints() == before
            k["trials"].append(t)
            if not t["passed"] or not t["inputs_unchanged"]:
                fail(k, "failed", failure_summary(t, p["tolerance"]))
                if not t["inputs_unchanged"]:
                    fill_inputs(torch, ctx.backend, ctx.from_tensors, p, trial, seed, tensors)
                del y
                continue
            if trial == len(p["seeds"]) - 1:
                last_outputs[k["id"]] = y
            else:
                del y
    for k in kernels:
        if k["pending"]:
            k["status"] = "passed"  # every trial ran and passed
    for k in kernels:
        if not k["pending"]:
            continue
        y0 = last_outputs.pop(k["id"])
        try:
            check_second_call(ctx, p, k, tensors, y0)
            if k["pending"]:
                time_candidate(ctx, p, k, tensors, y0)
        except Exception as e:
            if is_cuda_failure(e):
                fail(k, "error", "%s: %s" % (type(e).__name__, str(e)[:300]))
                raise
            fail(k, "error", "while timing: %s: %s" % (type(e).__name__, str(e).strip()[:300]))
        del y0
        k["instance"] = None
    return result


def check_second_call(ctx, p, k, tensors, y0):
    torch = ctx.torch
    y = call_checked(ctx, k, tensors)
    k["deterministic"] = bool(torch.equal(y, y0))
    # Judged over all checked calls: the one that stayed least over its allowance.
    us, call_ms = min(k["escaped"], key=lambda e: e[0] - escaped_limit_us(e[1]))
    why = escaped_failure(us, call_ms)
    if why:
        fail(k, "failed", why)


def time_candidate(ctx, p, k, tensors, y0):
    torch = ctx.torch
    x, w, b = tensors["x"], tensors.get("weight"), tensors.get("bias")
    progress("%s: timing %s" % (p["id"], k["id"]))
    deterministic = k["deterministic"]
    chosen = random.Random(p["seed"] ^ hash(k["id"])).randrange(max(1, p["timing"]["min_samples"]))
    state = {"mismatch": None, "failure": None, "compared": 0, "last": None}

    def after_sample(i, y):
        if deterministic:
            state["compared"] += 1
            if state["mismatch"] is None and not torch.equal(y, y0):
                state["mismatch"] = i
        elif i == chosen and state["failure"] is None:
            t = verify(torch, p, x, w, b, y, 0, 0)
            if not t["passed"]:
                state["failure"] = "timed sample %d: %s" % (i, violation_summary(t, p["tolerance"]))
        state["last"] = y

    before = [fingerprint(torch, tensors.get(n)) for n in ("x", "weight", "bias")]
    summary, escaped = ctx.gpu.time_calls(lambda: k["instance"].call(x, w, b), p["timing"], after_sample)
    last, count = state.pop("last"), summary["samples"]
    checks = {"outputs_checked": state["compared"] if deterministic else 2 if count > chosen else 1,
              "method": "bitwise" if deterministic else "reference",
              "escaped_work_us": sorted(escaped)[len(escaped) // 2]}
    why = escaped_failure(checks["escaped_work_us"], summary["median_ms"])
    if not why and [fingerprint(torch, tensors.get(n)) for n in ("x", "weight", "bias")] != before:
        why = "modified its inputs"
    if not why and state["mismatch"] is not None:
        why = ("the output of timed sample %d is not the verified output (the candidate gave "
               "bitwise identical outputs when verified)" % state["mismatch"])
    if not why and state["failure"]:
        why = state["failure"]
    if not why and not deterministic:
        t = verify(torch, p, x, w, b, last, 0, 0)
        if not t["passed"]:
            why = "timed sample %d: %s" % (count - 1, violation_summary(t, p["tolerance"]))
    if why:
        return fail(k, "failed", "while timing: " + why)
    if not ctx.allow_faster_than_copy:
        why = copy_floor_failure(summary["median_ms"], p, ctx.copy, ctx.gpu.l2_bytes)
        if why:
            return fail(k, "failed", why)
    k["timing"], k["checks"] = summary, checks


def resource_problem(ctx, p):
    torch = ctx.torch
    torch.cuda.empty_cache()
    free, _ = torch.cuda.mem_get_info(ctx.gpu.device)
    x_bytes = 4 * p["num_elements"]
    # x, the verified output kept to compare the timed samples with, two samples' outputs, and
    # the reference's float64 slabs.
    needed = 4 * x_bytes + 8 * p["param_size"] + 4 * 8 * min(p["num_elements"], CHUNK + p["segment_size"]) + 256e6
    if needed > free:
        return "does not fit in GPU memory: needs %.2f GB, %.2f GB free" % (needed / 1e9, free / 1e9)
    return None
