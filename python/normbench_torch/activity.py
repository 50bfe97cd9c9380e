"""What one call of a candidate ran on the device, as normbench's reports show it (a kernel's
`activity`: app/check/activity_accounting.hpp): each kernel, copy and memset with its device
time, read from PyTorch's profiler (CUPTI underneath). The profiler does not say which stream
was the call's, so streams are "unknown" here; work off the current stream is judged by the
escaped-work rule (checks.py). A submission none of whose kernels is its own (its extension did
not build and it fell back to PyTorch, say) is labelled so, not failed: its output is right."""

PYTORCH_ONLY = "only PyTorch's own kernels ran: none of the submission's"

# Kernels of PyTorch's native library (ATen and its CUDA helpers).
PYTORCH_NAMESPACES = ("at::", "c10::")


def short_name(full):
    """'void ns::(anonymous namespace)::kernel<float, 4>(float const*, int)' -> 'kernel<float, 4>',
    as normbench's reports shorten kernel names (template arguments too when long)."""
    s = full
    if s.endswith(")"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            if s[i] == ")":
                depth += 1
            elif s[i] == "(":
                depth -= 1
                if depth == 0:
                    s = s[:i]
                    break
    angle = paren = 0
    begin = 0
    for i, c in enumerate(s):
        angle += (c == "<") - (c == ">")
        paren += (c == "(") - (c == ")")
        if angle or paren:
            continue
        if c == " ":
            begin = i + 1
        if c == ":" and s[i + 1:i + 2] == ":":
            begin = i + 2
    s = s[begin:]
    if len(s) > 60 and "<" in s:
        s = s[:s.index("<")] + "<...>"
    return s


def operation(name, duration_us):
    """One device operation of the profiler ("Memcpy DtoD (Device -> Device)", "Memset
    (Device)", or a kernel's demangled name)."""
    if name.startswith("Memcpy"):
        kind, shown = "memcpy", "memcpy " + name.split()[1] if len(name.split()) > 1 else name
    elif name.startswith("Memset"):
        kind, shown = "memset", "memset"
    else:
        kind, shown = "kernel", short_name(name)
    return {"kind": kind, "name": shown, "stream": "unknown", "duration_us": float(duration_us),
            "full_name": name}


def is_pytorchs_own(op):
    return op["kind"] != "kernel" or any(ns in op["full_name"] for ns in PYTORCH_NAMESPACES)


def activity(operations, candidate_id):
    """The report's `activity` object of a candidate whose one call ran `operations`."""
    out = {"operations": [{k: v for k, v in op.items() if k != "full_name"} for op in operations],
           "from": "checked launch", "device_median_ms": None}
    own_code = candidate_id not in ("torch.eager", "torch.compile")
    if own_code and operations and all(is_pytorchs_own(op) for op in operations):
        out["label"] = PYTORCH_ONLY
    return out


def trace_call(torch, call):
    """Runs `call` once under PyTorch's profiler; returns its device operations in the order
    they started."""
    from torch.autograd import DeviceType
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        call()
        torch.cuda.synchronize()
    events = [e for e in prof.events() if e.device_type == DeviceType.CUDA]
    events.sort(key=lambda e: e.time_range.start)
    return [operation(e.name, e.time_range.elapsed_us()) for e in events]
