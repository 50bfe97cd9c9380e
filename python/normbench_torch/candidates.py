"""What this package evaluates on normbench's problems, besides normbench's own kernels:

  torch.eager        torch.nn.functional: layer_norm, group_norm, rms_norm; layer_norm_gelu_scale
                     as gelu(layer_norm(x), approximate='none') * scale; add_rms_norm as
                     s = x + residual; y = rms_norm(s), returning (y, s)
  torch.compile      torch.compile of the same function (dynamic=False, fullgraph=True)
  callable.<name>    --callable module:function, called as function(x, weight, bias, problem)
                     with torch tensors on the GPU (weight None when not affine, bias None
                     without one; x channels-last for an nhwc problem) and the problem (a dict:
                     op, shape, eps, dtype, param_dtype, layout, has_bias, ...); returns y. For
                     add_rms_norm: function(x, weight, bias, problem, residual=r) returns (y, s).
  kernelbench.<stem> --kernelbench FILE.py: a KernelBench-style ModelNew computing layer_norm
                     or group_norm (kernelbench.py)

Every output must have x's logical shape, dtype and device (its memory format may differ:
verification is logical). Each candidate is instantiated per problem; a candidate that cannot
take a problem says why (NotSupported), one that fails to import, compile or build ends `error`
with the reason.
"""

import importlib
import os
import sys

from .dtypes import torch_dtype
from .errors import UsageError


class NotSupported(Exception):
    """The candidate does not compute this problem's op: status not_supported."""


class CandidateError(Exception):
    """The candidate failed to import, compile or build: status error."""


def op_function(p):
    """The problem's op in torch.nn.functional: f(x, weight, bias, residual) -> y, or (y, s)
    for add_rms_norm."""
    import torch.nn.functional as F
    eps, op = p["eps"], p["op"]
    if op == "group_norm":
        groups = p["groups"]
        return lambda x, w, b, r: F.group_norm(x, groups, w, b, eps)
    shape = tuple(p["normalized_shape"])
    if op == "layer_norm":
        return lambda x, w, b, r: F.layer_norm(x, shape, w, b, eps)
    if op == "layer_norm_gelu_scale":
        scale = p["scale"]
        return lambda x, w, b, r: F.gelu(F.layer_norm(x, shape, w, b, eps), approximate="none") * scale
    if not hasattr(F, "rms_norm"):
        raise NotSupported("this PyTorch has no torch.nn.functional.rms_norm (PyTorch 2.4 added it)")
    if op == "rms_norm":
        return lambda x, w, b, r: F.rms_norm(x, shape, w, eps)
    if op == "add_rms_norm":
        def add_rms_norm(x, w, b, r):
            s = x + r
            return F.rms_norm(s, shape, w, eps), s
        return add_rms_norm
    raise NotSupported("torch.nn.functional has no op %s" % op)


# How the ops that torch.nn.functional has no single function for are written.
TORCH_FORMS = {"layer_norm_gelu_scale": "gelu(layer_norm(x)) * scale",
               "add_rms_norm": "s = x + residual; y = rms_norm(s)"}


def promoted_dtype(torch, p, fn, device=None):
    """The dtype of y that `fn` returns on a problem's dtypes (one small sample of it), or None
    when it is x's. The composite rms_norm of PyTorch 2.5 and earlier multiplies its result,
    already rounded to x's dtype, by the weight: a float32 weight on bfloat16 x gives float32
    (seen with 2.5.1; later versions multiply first and return x's dtype)."""
    device = device or torch.device("cuda", torch.cuda.current_device())
    dtype, param = torch_dtype(torch, p["dtype"]), torch_dtype(torch, p["param_dtype"])
    shape = ([1, p["channels"]] + [1] * (len(p["shape"]) - 2) if p["op"] == "group_norm"
             else [1] + list(p["normalized_shape"]))
    x = torch.rand(shape, device=device).to(dtype)
    r = torch.rand(shape, device=device).to(dtype) if p["has_residual"] else None
    w = torch.ones(p["param_shape"], dtype=param, device=device) if p["affine"] else None
    b = torch.zeros(p["param_shape"], dtype=param, device=device) if p["has_bias"] else None
    try:
        out = fn(x, w, b, r)
    except RuntimeError as e:
        # PyTorch declining the dtypes (its group_norm takes no float32 weight with bfloat16 x:
        # "expected scalar type BFloat16 but found Float") is PyTorch not supporting the
        # problem, not a failure of the candidate.
        if "scalar type" not in str(e) and "dtype" not in str(e):
            raise
        raise NotSupported("PyTorch's %s refuses %s weights with %s data: %s" % (
            p["op"], p["param_dtype"], p["dtype"], describe_error(e)))
    y = out[0] if isinstance(out, tuple) else out
    return None if y.dtype == dtype else y.dtype


def torch_function(torch, p):
    """(f, note): the op's function, with y cast to x's dtype where PyTorch returns another
    (the note says so, for the candidate's description)."""
    fn = op_function(p)
    promoted = promoted_dtype(torch, p, fn)
    if promoted is None:
        return fn, None
    dtype = torch_dtype(torch, p["dtype"])

    def cast(x, w, b, r):
        out = fn(x, w, b, r)
        if isinstance(out, tuple):
            return (out[0].to(dtype),) + out[1:]
        return out.to(dtype)
    return cast, "y cast to %s: PyTorch returns %s here" % (p["dtype"], str(promoted).replace("torch.", ""))


class Instance:
    """A candidate built for one problem: call(x, w, b, r) -> y or (y, s); load(w, b) before
    each trial; note: what the description should add (a cast, say), or None."""

    def __init__(self, call, load=None, note=None):
        self.call = call
        self.load = load or (lambda w, b: None)
        self.note = note


class TorchEager:
    id = "torch.eager"
    origin = None

    def describe(self, p):
        return "torch.nn.functional (%s), eager" % TORCH_FORMS.get(p["op"], p["op"])

    def instantiate(self, torch, p):
        fn, note = torch_function(torch, p)
        return Instance(fn, note=note)


class TorchCompile:
    id = "torch.compile"
    origin = None

    def __init__(self, mode):
        self.mode = mode

    def describe(self, p):
        return "torch.compile of the torch.nn.functional function (mode %s)" % self.mode

    def instantiate(self, torch, p):
        import torch._dynamo
        torch._dynamo.reset()  # a fresh cache per problem: no recompile limit across problems
        fn, note = torch_function(torch, p)
        return Instance(torch.compile(fn, mode=self.mode, dynamic=False, fullgraph=True), note=note)


def describe_error(e):
    first = str(e).strip().splitlines()
    return "%s: %s" % (type(e).__name__, first[-1] if first else "")


class Callable:
    """--callable module:function."""

    def __init__(self, spec):
        if spec.count(":") != 1 or not all(spec.split(":")):
            raise UsageError("--callable %s: expected module:function" % spec)
        self.module, self.function = spec.split(":")
        self.id = "callable." + spec.replace(":", ".")
        self.origin = spec
        self._fn = None
        self._error = None

    def describe(self, p):
        if p["has_residual"]:
            return "%s(x, weight, bias, problem, residual=residual) -> (y, s)" % self.origin
        return "%s(x, weight, bias, problem)" % self.origin

    def _load(self):
        if self._fn is None and self._error is None:
            try:
                if os.getcwd() not in sys.path:
                    sys.path.insert(0, os.getcwd())
                fn = getattr(importlib.import_module(self.module), self.function)
                if not callable(fn):
                    raise TypeError("%s is not callable" % self.origin)
                self._fn = fn
            except Exception as e:  # the submission's own import: anything can happen
                self._error = "cannot import %s: %s" % (self.origin, describe_error(e))
        if self._error:
            raise CandidateError(self._error)
        return self._fn

    def instantiate(self, torch, p):
        fn = self._load()
        problem = callable_problem(p)
        if p["has_residual"]:
            return Instance(lambda x, w, b, r: fn(x, w, b, problem, residual=r))
        return Instance(lambda x, w, b, r: fn(x, w, b, problem))


def callable_problem(p):
    """The problem as a callable sees it: a fresh dict each problem (a callable that changes it
    changes nothing here)."""
    problem = {k: p[k] for k in ("id", "op", "shape", "normalized_shape", "groups", "eps",
                                 "scale", "affine", "has_bias", "dtype", "param_dtype", "layout")}
    return dict(problem, shape=list(p["shape"]), normalized_shape=(
        list(p["normalized_shape"]) if p["normalized_shape"] is not None else None))
