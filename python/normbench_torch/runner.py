"""One problem, end to end, for the candidates of candidates.py: inputs, the float64 reference,
each candidate's trials, then for those that passed a second call (determinism) and the timing
with its checks. The checks are normbench's where Python allows them (checks.py; README,
threat model): every output of every trial verified; inputs fingerprinted; each call's outputs
must be tensors of x's logical shape, dtype and device; work left running outside the current
stream is measured; every timed sample's outputs are compared bitwise with the verified ones
(deterministic candidates) or two samples are verified (the others); a median faster than the
copy floor fails. A CUDA fault cannot be survived in one Python process: it ends the run, and
the candidates not yet run are `not_run`."""

import random
import sys

from .activity import activity, trace_call
from .checks import (copy_floor_failure, escaped_failure, escaped_limit_us, gpu_bytes_needed,
                     outputs_of, same_outputs)
from .gpu import device_busy_after_us
from .inputs import allocate_inputs, fill_inputs
from .verify import failure_summary, fingerprint, verify


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


def escaped_work_us(torch):
    """Waits for the current stream, then measures how long the rest of the device stayed busy
    (microseconds): the work the call left on other streams."""
    torch.cuda.current_stream().synchronize()
    return device_busy_after_us(torch)


def new_kernel(candidate, p):
    return {"id": candidate.id, "description": candidate.describe(p), "origin": candidate.origin,
            "status": "not_run", "reason": "", "trials": [], "timing": None, "checks": None,
            "deterministic": None, "instance": None, "escaped": [], "pending": False,
            "activity": None}


def fail(k, status, reason):
    k.update(status=status, reason=reason, pending=False, timing=None)


def instantiate(ctx, candidate, p, k):
    from .candidates import CandidateError, NotSupported
    try:
        k["instance"] = candidate.instantiate(ctx.torch, p)
        k["pending"] = True
        if k["instance"].note:
            k["description"] += "; " + k["instance"].note
    except NotSupported as e:
        fail(k, "not_supported", str(e))
    except CandidateError as e:
        fail(k, "error", str(e))
    except Exception as e:  # a submission's constructor: anything can happen
        if is_cuda_failure(e):
            raise
        fail(k, "error", "while building it: %s: %s" % (type(e).__name__, str(e).strip()[:300]))


def call_arguments(tensors):
    return tensors["x"], tensors.get("weight"), tensors.get("bias"), tensors.get("residual")


def call_checked(ctx, p, k, tensors):
    """One call, timed by events and followed by the escaped-work measurement (kept in
    k["escaped"] as (us, call ms)); returns its outputs, or raises TypeError for wrong ones."""
    torch = ctx.torch
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    result = k["instance"].call(*call_arguments(tensors))
    stop.record()
    k["escaped"].append((escaped_work_us(torch), float(start.elapsed_time(stop))))
    return outputs_of(torch, result, p, tensors["x"])


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

    tensors = allocate_inputs(torch, p, ctx.gpu.device)
    prints = lambda: [fingerprint(torch, tensors[n]) for n in p["inputs"]]  # noqa: E731
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
                outputs = call_checked(ctx, p, k, tensors)
            except Exception as e:  # the candidate's code: raises, wrong outputs, CUDA faults
                if is_cuda_failure(e):
                    fail(k, "error", "trial %d: %s: %s" % (trial, type(e).__name__, str(e)[:300]))
                    raise
                fail(k, "error", "trial %d: %s: %s" % (trial, type(e).__name__, str(e).strip()[:300]))
                continue
            t, why = verify(torch, p, tensors, outputs, trial, seed)
            t["inputs_unchanged"] = prints() == before
            k["trials"].append(t)
            if not t["passed"] or not t["inputs_unchanged"]:
                fail(k, "failed", failure_summary(t, why))
                if not t["inputs_unchanged"]:
                    fill_inputs(torch, ctx.backend, ctx.from_tensors, p, trial, seed, tensors)
                del outputs
                continue
            if trial == len(p["seeds"]) - 1:
                last_outputs[k["id"]] = outputs
            else:
                del outputs
    for k in kernels:
        if k["pending"]:
            k["status"] = "passed"  # every trial ran and passed
    for k in kernels:
        if not k["pending"]:
            continue
        verified = last_outputs.pop(k["id"])
        try:
            check_second_call(ctx, p, k, tensors, verified)
            note_activity(ctx, k, tensors)
            if k["pending"]:
                time_candidate(ctx, p, k, tensors, verified)
        except Exception as e:
            if is_cuda_failure(e):
                fail(k, "error", "%s: %s" % (type(e).__name__, str(e)[:300]))
                raise
            fail(k, "error", "while timing: %s: %s" % (type(e).__name__, str(e).strip()[:300]))
        del verified
        k["instance"] = None
    return result


def check_second_call(ctx, p, k, tensors, verified):
    outputs = call_checked(ctx, p, k, tensors)
    k["deterministic"] = same_outputs(ctx.torch, outputs, verified)
    # Judged over all checked calls: the one that stayed least over its allowance.
    us, call_ms = min(k["escaped"], key=lambda e: e[0] - escaped_limit_us(e[1]))
    why = escaped_failure(us, call_ms)
    if why:
        fail(k, "failed", why)


def note_activity(ctx, k, tensors):
    """What one more call ran on the device (activity.py). A profiler that fails leaves the
    kernel without it: the checks do not depend on it."""
    try:
        operations = trace_call(ctx.torch, lambda: k["instance"].call(*call_arguments(tensors)))
    except Exception as e:  # the profiler, or the call: the call's own failures show elsewhere
        if is_cuda_failure(e):
            raise
        progress("%s: no activity trace: %s" % (k["id"], str(e).strip()[:200]))
        return
    k["activity"] = activity(operations, k["id"])


def time_candidate(ctx, p, k, tensors, verified):
    torch = ctx.torch
    arguments = call_arguments(tensors)
    progress("%s: timing %s" % (p["id"], k["id"]))
    deterministic = k["deterministic"]
    chosen = random.Random(p["seed"] ^ hash(k["id"])).randrange(max(1, p["timing"]["min_samples"]))
    state = {"mismatch": None, "failure": None, "compared": 0, "last": None}

    def after_sample(i, result):
        outputs = outputs_of(torch, result, p, tensors["x"])
        if deterministic:
            state["compared"] += 1
            if state["mismatch"] is None and not same_outputs(torch, outputs, verified):
                state["mismatch"] = i
        elif i == chosen and state["failure"] is None:
            t, why = verify(torch, p, tensors, outputs, 0, 0)
            if not t["passed"]:
                state["failure"] = "timed sample %d: %s" % (i, why)
        state["last"] = outputs

    before = [fingerprint(torch, tensors[n]) for n in p["inputs"]]
    summary, escaped = ctx.gpu.time_calls(lambda: k["instance"].call(*arguments), p["timing"], after_sample)
    last, count = state.pop("last"), summary["samples"]
    checks = {"outputs_checked": state["compared"] if deterministic else 2 if count > chosen else 1,
              "method": "bitwise" if deterministic else "reference",
              "escaped_work_us": sorted(escaped)[len(escaped) // 2]}
    why = escaped_failure(checks["escaped_work_us"], summary["median_ms"])
    if not why and [fingerprint(torch, tensors[n]) for n in p["inputs"]] != before:
        why = "modified its inputs"
    if not why and state["mismatch"] is not None:
        why = ("the output of timed sample %d is not the verified output (the candidate gave "
               "bitwise identical outputs when verified)" % state["mismatch"])
    if not why and state["failure"]:
        why = state["failure"]
    if not why and not deterministic:
        t, failure = verify(torch, p, tensors, last, 0, 0)
        if not t["passed"]:
            why = "timed sample %d: %s" % (count - 1, failure)
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
    needed = gpu_bytes_needed(p)
    if needed > free:
        return "does not fit in GPU memory: needs %.2f GB, %.2f GB free" % (needed / 1e9, free / 1e9)
    return None
