"""The checks around a candidate's calls, as normbench's where Python allows them
(app/check/integrity.hpp, README "Threat model"): what a call must return, how long the
device may stay busy after the stream it was given, the copy floor, and the GPU memory a
problem needs."""

from .dtypes import ELEMENT_BYTES
from .verify import slab_rows

ESCAPED_WORK_LIMIT_US = 50.0  # as app/check/integrity.hpp
COPY_FLOOR_MARGIN = 0.10


def output_problem(torch, y, x):
    """Why a returned value is not an output for x, or None: it must be a tensor of x's
    logical shape, dtype and device (its memory format may differ)."""
    if not isinstance(y, torch.Tensor):
        return "returned %s, not a torch.Tensor" % type(y).__name__
    if tuple(y.shape) != tuple(x.shape):
        return "returned shape %s, expected %s" % (list(y.shape), list(x.shape))
    if y.dtype != x.dtype:
        return "returned dtype %s, expected %s" % (y.dtype, x.dtype)
    if y.device != x.device:
        return "returned a tensor on %s, expected %s" % (y.device, x.device)
    return None


def outputs_of(torch, result, p, x):
    """{output name: tensor} of one call's return value: y, or the tuple (y, s) for
    add_rms_norm; raises TypeError saying what is wrong with it."""
    names = p["outputs"]
    if len(names) == 1:
        values = [result]
    elif isinstance(result, (tuple, list)) and len(result) == len(names):
        values = list(result)
    else:
        raise TypeError("returned %s, expected a tuple (%s)" % (
            "a %s of %d" % (type(result).__name__, len(result)) if isinstance(result, (tuple, list))
            else type(result).__name__, ", ".join(names)))
    outputs = {}
    for name, value in zip(names, values):
        why = output_problem(torch, value, x)
        if why:
            raise TypeError(("%s: %s" % (name, why)) if len(names) > 1 else why)
        outputs[name] = value
    return outputs


def same_outputs(torch, a, b):
    """Bitwise the same, every output."""
    return all(bool(torch.equal(a[n], b[n])) for n in a)


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
    """As app/check/integrity.cpp: faster than the problem's DRAM bytes (normbench's
    read_bytes and write_bytes, in the problem's element sizes) at the copy bandwidth, by more
    than the margin."""
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


def gpu_bytes_needed(p):
    """GPU memory the harness holds for a problem, besides the candidate's own temporaries:
    the inputs; the verified outputs (kept to compare the timed samples with) and two samples'
    outputs; the reference's float64 arrays over a slab (inputs, the sum, outputs, errors:
    about 8 of a slab); 256 MB of slack."""
    element, param = ELEMENT_BYTES[p["dtype"]], ELEMENT_BYTES[p["param_dtype"]]
    data_inputs = len([n for n in p["inputs"] if n in ("x", "residual")])
    params = len([n for n in p["inputs"] if n in ("weight", "bias")])
    n = p["num_elements"]
    slab = min(n, slab_rows(p) * p["segment_size"])
    return (element * n * (data_inputs + 3 * len(p["outputs"])) + param * p["param_size"] * params
            + 8 * 8 * slab + 256e6)
