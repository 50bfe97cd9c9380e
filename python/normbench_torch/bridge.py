"""The Python side of normbench's device worker (app/python/embedded_python.hpp). The worker
embeds this interpreter and calls plan, launch and finish, each with one JSON text, each
returning one; nothing here raises into the worker (an exception comes back as {"error": why}).

  plan     {candidate, problem, device}  -> {handle, in_place} | {unsupported} | {error}
           builds the candidate for the problem (imports, builds extensions, compiles: untimed)
  launch   {handle, x, residual, weight, bias, y, sum, dy, mean, rstd, grad_weight, grad_bias,
            ds_out, stream} -> {} | {error}
           one call of the candidate on normbench's buffers (device addresses) with the given
           stream current: what normbench times
  finish   (as launch) -> {} | {error}
           after the timed region, on the same stream: a returned output is copied into
           normbench's guarded one (y, s; a backward op's dx, dweight, dbias), converting its
           memory format if it differs

Tensors are normbench's own memory, viewed through __cuda_array_interface__ (no copy): x, dy,
ds_out and the outputs of x's shape in the problem's layout, weight, bias, dweight and dbias in its
parameter dtype, mean and rstd float32 of the statistics' shape. The views are made once per
set of addresses, so that a timed call pays for nothing but the candidate.
"""

# Bound here, not looked up per call: a submission that patches json.dumps or replaces
# sys.modules["json"] must not take the bridge's answers with it.
from json import dumps as _dumps, loads as _loads

from .candidates import (CandidateError, NotSupported, describe_error, import_callable,
                         message_of, python_function, refused_dtypes, torch_compile, torch_dtype,
                         torch_eager)
from .kernelbench import kernelbench_model, load_model_class

_state = {"problem": None, "handles": {}, "next": 1, "callables": {}, "classes": {}}

# The answer when even describing the failure failed: a constant, which nothing can break.
_UNDESCRIBED = '{"error": "the candidate failed in a way that could not be described"}'


def _answer(work, text):
    try:
        try:
            return _dumps(work(_loads(text)))
        except CandidateError as e:  # a reason of the bridge's own, already in words
            return _dumps({"error": message_of(e)})
        except BaseException as e:  # the candidate's code runs here: anything can happen
            return _dumps({"error": describe_error(e)})
    except BaseException:  # an exception raised again while answering (a MemoryError, say)
        return _UNDESCRIBED


def plan(text):
    return _answer(_plan, text)


def launch(text):
    return _answer(lambda r: _state["handles"][r["handle"]].launch(r), text)


def finish(text):
    return _answer(lambda r: _state["handles"][r["handle"]].finish(r), text)


class _View:
    """normbench's device memory as __cuda_array_interface__ sees it."""

    def __init__(self, address, shape, strides, typestr):
        self.__cuda_array_interface__ = {"version": 2, "data": (address, False),
                                         "shape": tuple(shape), "strides": tuple(strides),
                                         "typestr": typestr}


_TYPESTR = {"float32": "<f4", "float16": "<f2", "bfloat16": "<i2"}  # bfloat16: viewed after
_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}

# Every tensor a launch may name: the request's key for its address and what kind it is (x's
# shape, dtype and layout; the parameters'; the statistics'). A backward op's dx is in y.
TENSORS = {"x": ("x", "data"), "residual": ("residual", "data"), "weight": ("weight", "params"),
           "bias": ("bias", "params"), "dy": ("dy", "data"), "mean": ("mean", "statistics"),
           "rstd": ("rstd", "statistics"), "y": ("y", "data"), "s": ("sum", "data"),
           "dx": ("y", "data"), "dweight": ("grad_weight", "params"),
           "dbias": ("grad_bias", "params"), "ds_out": ("ds_out", "data")}


def tensor_format(p, kind):
    """(shape, dtype, channels_last) of a tensor of `kind` of problem p."""
    if kind == "data":
        return p["shape"], p["dtype"], p["layout"] == "nhwc"
    if kind == "params":
        return p["param_shape"], p["param_dtype"], False
    return p["stat_shape"], "float32", False


def element_strides(shape, channels_last):
    """Strides in elements of a contiguous tensor of `shape` in the logical order, or stored
    (N, spatial..., C) when channels_last (normbench's nhwc)."""
    if not channels_last:
        strides, step = [], 1
        for extent in reversed(shape):
            strides.insert(0, step)
            step *= extent
        return strides
    n, c, spatial = shape[0], shape[1], shape[2:]
    strides = [0] * len(shape)
    strides[1] = 1
    step = c
    for d in range(len(shape) - 1, 1, -1):
        strides[d] = step
        step *= shape[d]
    strides[0] = step
    return strides


def view(torch, address, shape, dtype, channels_last, device):
    """A torch tensor over normbench's memory at `address` (None for address 0)."""
    if not address:
        return None
    size = _BYTES[dtype]
    strides = [s * size for s in element_strides(list(shape), channels_last)]
    t = torch.as_tensor(_View(address, shape, strides, _TYPESTR[dtype]), device=device)
    return t.view(torch.bfloat16) if dtype == "bfloat16" else t


def _plan(request):
    import torch
    p, candidate = request["problem"], request["candidate"]
    if p != _state["problem"]:  # a new problem: the last one's candidates and memory go
        _state["handles"].clear()
        _state["problem"] = p
        torch.cuda.empty_cache()
    device = torch.device("cuda", request["device"])
    torch.cuda.set_device(device)
    try:
        built = _build(torch, candidate, p)
        prepared = _Prepared(torch, built, p, device)
        prepared.warm_up(candidate["kind"].startswith("torch."))
    except NotSupported as e:
        return {"unsupported": message_of(e)}
    except CandidateError as e:
        return {"error": message_of(e)}
    except BaseException as e:
        refused = refused_dtypes(p, e) if candidate["kind"].startswith("torch.") else None
        if refused is not None:
            return {"unsupported": message_of(refused)}
        return {"error": "%s: %s" % (_when(candidate), describe_error(e))}
    finally:
        torch.cuda.synchronize(device)
        torch.cuda.empty_cache()  # normbench allocates the problem's memory after planning
    handle = _state["next"]
    _state["next"] += 1
    _state["handles"][handle] = prepared
    return {"handle": handle, "in_place": built.in_place}


def _when(candidate):
    return {"torch.compile": "torch.compile failed", "kernelbench": "building ModelNew failed",
            "python": "preparing the function failed"}.get(candidate["kind"], "failed")


def _build(torch, candidate, p):
    kind = candidate["kind"]
    if kind == "torch.eager":
        return torch_eager(torch, p)
    if kind == "torch.compile":
        return torch_compile(torch, p, candidate["mode"])
    if kind == "python":
        return python_function(_once(_state["callables"], candidate["spec"], import_callable), p)
    if kind == "kernelbench":
        cls = _once(_state["classes"], candidate["path"], load_model_class)
        return kernelbench_model(torch, cls, p)
    raise CandidateError("unknown candidate kind %r" % kind)


def _once(cache, key, load):
    """load(key) once per worker (a module's import, a file's execution and the extensions it
    builds); a CandidateError is kept and raised again for every later problem."""
    if key not in cache:
        try:
            cache[key] = load(key)
        except CandidateError as e:
            cache[key] = e
    if isinstance(cache[key], CandidateError):
        raise cache[key]
    return cache[key]


class _Prepared:
    """A built candidate on one problem: the views of normbench's tensors and the last output."""

    def __init__(self, torch, built, p, device):
        self.torch, self.built, self.p, self.device = torch, built, p, device
        self.addresses = None
        self.streams = {}
        self.result = None

    def _views(self, r):
        """Every tensor of the problem, by name (TENSORS), over the request's addresses."""
        views = {}
        for name in self.p["inputs"] + self.p["outputs"]:
            key, kind = TENSORS[name]
            shape, dtype, channels_last = tensor_format(self.p, kind)
            views[name] = view(self.torch, r[key], shape, dtype, channels_last, self.device)
        return views

    def _bind(self, r):
        addresses = tuple(r.get(TENSORS[n][0], 0) for n in self.p["inputs"] + self.p["outputs"])
        if addresses != self.addresses:
            self.tensors = self._views(r)
            self.built.bind(self.tensors.get("weight"), self.tensors.get("bias"))
            self.addresses = addresses

    def _stream(self, address):
        if address not in self.streams:
            self.streams[address] = self.torch.cuda.ExternalStream(address, device=self.device)
        return self.streams[address]

    def warm_up(self, needed):
        """PyTorch's first call, made here on tensors of the problem's shapes, dtypes and layout
        (uninitialised): torch.compile compiles then, so that no checked or timed launch
        compiles, and an op that refuses the problem's dtypes says so while planning
        (not_supported) rather than at its first launch."""
        if not needed:
            return
        torch, p = self.torch, self.p
        keep = []

        def scratch(shape, dtype):
            numel = 1
            for extent in shape:
                numel *= extent
            buffer = torch.empty(numel * _BYTES[dtype], dtype=torch.uint8, device=self.device)
            keep.append(buffer)
            return buffer.data_ptr()

        r = {key: 0 for key, _ in TENSORS.values()}
        for name in p["inputs"] + p["outputs"]:
            key, kind = TENSORS[name]
            shape, dtype, _ = tensor_format(p, kind)
            r[key] = scratch(shape, dtype)
        r["stream"] = torch.cuda.current_stream(self.device).cuda_stream
        self.launch(r)
        self.result = None
        self.addresses = None  # normbench's own buffers get views of their own

    def launch(self, r):
        given = self._stream(r["stream"])
        # A <<<...>>> launch without a stream, as KernelBench files often write, goes to the
        # legacy default stream, which does not wait for normbench's non-blocking stream nor
        # it for that: the call is forked from the given stream and joined back into it, so that
        # such work is ordered and timed inside the launch (work on streams of the candidate's
        # own is not, and the activity trace fails it).
        legacy = self.torch.cuda.default_stream(self.device)
        legacy.wait_stream(given)
        try:
            # Everything else on the given stream, the views' first binding too (a KernelBench
            # model's parameters filled with 1s where the problem has no weight); no autograd
            # graph: normbench times inference.
            with self.torch.cuda.stream(given), self.torch.no_grad():
                self._bind(r)
                out = self._call(self.tensors)
        finally:
            given.wait_stream(legacy)
        if not self.built.in_place:
            self.result = self._checked(out)
        return {}

    def _call(self, t):
        """The built candidate on the views: a forward op's call(x, weight, bias, residual, out),
        a backward op's call(x, dy, weight, mean, rstd, out) (add_rms_norm_backward's with
        ds_out= too), out its output views (one tensor, or a tuple where there are several)."""
        outs = tuple(t[name] for name in self.p["outputs"])
        out = outs if len(outs) > 1 else outs[0]
        if self.p["backward"]:
            extra = {"ds_out": t["ds_out"]} if "ds_out" in t else {}
            return self.built.call(t["x"], t["dy"], t.get("weight"), t.get("mean"), t["rstd"], out,
                                   **extra)
        return self.built.call(t["x"], t.get("weight"), t.get("bias"), t.get("residual"), out)

    def _checked(self, out):
        """The returned output(s), which finish copies: y, (y, s) for add_rms_norm, or a backward
        op's (dx, dweight, dbias) (those it has), each of its tensor's logical shape and dtype on
        normbench's device."""
        torch, p = self.torch, self.p
        names = p["outputs"]
        if len(names) > 1:
            # Counted after tuple(): a tuple subclass may say it holds two and yield one.
            outs = tuple(out) if isinstance(out, (tuple, list)) else None
            if outs is None or len(outs) != len(names):
                raise CandidateError("returned %s%s; %s candidates return (%s)" % (
                    type(out).__name__, "" if outs is None else " of %d" % len(outs), p["op"],
                    ", ".join(names)))
        else:
            outs = (out,)
        for name, t in zip(names, outs):
            shape, dtype_name, _ = tensor_format(p, TENSORS[name][1])
            if not isinstance(t, torch.Tensor):
                raise CandidateError("returned %s for %s, not a tensor" % (type(t).__name__, name))
            if list(t.shape) != list(shape):
                raise CandidateError("returned %s of shape %s; the problem's is %s"
                                     % (name, list(t.shape), list(shape)))
            if t.dtype != torch_dtype(torch, dtype_name):
                raise CandidateError("returned %s of dtype %s; the problem's is %s"
                                     % (name, str(t.dtype).replace("torch.", ""), dtype_name))
            if t.device != self.device:
                raise CandidateError("returned %s on %s; the problem runs on %s"
                                     % (name, t.device, self.device))
        return outs

    def finish(self, r):
        if self.result is None:
            raise CandidateError("finish without a launch's output")
        with self.torch.cuda.stream(self._stream(r["stream"])), self.torch.no_grad():
            for name, out in zip(self.p["outputs"], self.result):
                self.tensors[name].copy_(out)
        self.result = None
        return {}
