"""What this package evaluates on normbench's problems, besides normbench's own kernels:

  torch.eager        torch.nn.functional.layer_norm / group_norm, or for layer_norm_gelu_scale
                     gelu(layer_norm(x), approximate='none') * scale
  torch.compile      torch.compile of the same function (dynamic=False, fullgraph=True)
  callable.<name>    --callable module:function, called as function(x, weight, bias, problem)
                     with torch tensors on the GPU (weight and bias None when not affine) and the
                     problem (a dict: op, shape, eps, ...); returns y
  kernelbench.<stem> --kernelbench FILE.py: a KernelBench-style file whose ModelNew computes one
                     of normbench's ops; ModelNew is built from the problem (its constructor's
                     parameters are matched by name: normalized_shape, num_features or
                     num_channels, num_groups, eps) and normbench's weight and bias are loaded
                     into its parameters of their shape.

Each is instantiated per problem; a candidate that cannot take a problem says why
(NotSupported), one that fails to import, compile or build ends `error` with the reason.
"""

import importlib
import importlib.util
import inspect
import os
import sys

from .errors import UsageError


class NotSupported(Exception):
    """The candidate does not compute this problem's op: status not_supported."""


class CandidateError(Exception):
    """The candidate failed to import, compile or build: status error."""


def op_function(p):
    import torch.nn.functional as F
    eps = p["eps"]
    if p["op"] == "group_norm":
        groups = p["groups"]
        return lambda x, w, b: F.group_norm(x, groups, w, b, eps)
    shape = tuple(p["normalized_shape"])
    if p["op"] == "layer_norm":
        return lambda x, w, b: F.layer_norm(x, shape, w, b, eps)
    scale = p["scale"]
    return lambda x, w, b: F.gelu(F.layer_norm(x, shape, w, b, eps), approximate="none") * scale


class Instance:
    """A candidate built for one problem: call(x, w, b) -> y; load(w, b) before each trial."""

    def __init__(self, call, load=None):
        self.call = call
        self.load = load or (lambda w, b: None)


class TorchEager:
    id = "torch.eager"
    origin = None

    def describe(self, p):
        return "torch.nn.functional (%s), eager" % p["op"]

    def instantiate(self, torch, p):
        return Instance(op_function(p))


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
        return Instance(torch.compile(op_function(p), mode=self.mode, dynamic=False, fullgraph=True))


def _describe_error(e):
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
                self._error = "cannot import %s: %s" % (self.origin, _describe_error(e))
        if self._error:
            raise CandidateError(self._error)
        return self._fn

    def instantiate(self, torch, p):
        fn = self._load()
        problem = {k: p[k] for k in ("id", "op", "shape", "normalized_shape", "groups", "eps",
                                     "scale", "affine")}
        return Instance(lambda x, w, b: fn(x, w, b, problem))


# KernelBench's models take these constructor parameters; the op they imply.
_LAYER_NORM_NAMES = {"normalized_shape"}
_GROUP_NORM_NAMES = {"num_groups"}
_CHANNEL_NAMES = {"num_features", "num_channels", "channels"}


def kernelbench_arguments(parameters, p):
    """The keyword arguments for ModelNew(...) on problem p, from its constructor's parameter
    names (a list of (name, has_default)); NotSupported when they imply another op."""
    names = {name for name, _ in parameters}
    implied = ("group_norm" if names & _GROUP_NORM_NAMES else
               "layer_norm" if names & _LAYER_NORM_NAMES else None)
    if implied is None:
        raise NotSupported("ModelNew(%s) names neither normalized_shape nor num_groups: cannot "
                           "tell its op" % ", ".join(n for n, _ in parameters))
    if implied != p["op"]:
        raise NotSupported("ModelNew computes %s, the problem is %s" % (implied, p["op"]))
    kwargs = {}
    for name, has_default in parameters:
        if name == "normalized_shape":
            kwargs[name] = tuple(p["normalized_shape"])
        elif name in _GROUP_NORM_NAMES:
            kwargs[name] = p["groups"]
        elif name in _CHANNEL_NAMES:
            kwargs[name] = p["channels"]
        elif name == "eps":
            kwargs[name] = p["eps"]
        elif name in ("elementwise_affine", "affine"):
            kwargs[name] = bool(p["affine"])
        elif not has_default:
            raise NotSupported("ModelNew's parameter %r has no value in a %s problem"
                               % (name, p["op"]))
    return kwargs


class KernelBench:
    """--kernelbench FILE.py: a KernelBench-style submission (a ModelNew class)."""

    def __init__(self, path):
        if not os.path.isfile(path):
            raise UsageError("--kernelbench %s: no such file" % path)
        self.path = path
        stem = os.path.splitext(os.path.basename(path))[0]
        self.id = "kernelbench." + "".join(c if c.isalnum() or c in "_-" else "_" for c in stem)
        self.origin = path
        self._class = None
        self._error = None

    def describe(self, p):
        return "KernelBench-style ModelNew from %s" % self.path

    def _load(self):
        if self._class is None and self._error is None:
            try:
                name = "normbench_submission_" + self.id.split(".", 1)[1]
                spec = importlib.util.spec_from_file_location(name, self.path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)  # builds load_inline extensions, if any
                model = getattr(module, "ModelNew", None)
                if model is None:
                    raise AttributeError("%s defines no ModelNew" % self.path)
                self._class = model
            except Exception as e:
                self._error = "cannot import %s: %s" % (self.path, _describe_error(e))
        if self._error:
            raise CandidateError(self._error)
        return self._class

    def instantiate(self, torch, p):
        cls = self._load()
        signature = inspect.signature(cls.__init__)
        parameters = [(name, param.default is not inspect.Parameter.empty)
                      for name, param in list(signature.parameters.items())[1:]
                      if param.kind not in (param.VAR_POSITIONAL, param.VAR_KEYWORD)]
        kwargs = kernelbench_arguments(parameters, p)
        try:
            model = cls(**kwargs).cuda().eval()
        except Exception as e:
            raise CandidateError("ModelNew(%s) failed: %s" % (
                ", ".join("%s=%r" % kv for kv in kwargs.items()), _describe_error(e)))
        weight, bias = find_affine_parameters(model, tuple(p["param_shape"]))
        if p["affine"] and (weight is None or bias is None):
            raise NotSupported("ModelNew has no weight and bias parameters of shape %s to load "
                               "the problem's into" % list(p["param_shape"]))

        def load(w, b):
            with torch.no_grad():
                if weight is not None:
                    weight.copy_(w if w is not None else torch.ones_like(weight))
                if bias is not None:
                    bias.copy_(b if b is not None else torch.zeros_like(bias))

        def call(x, w, b):
            with torch.no_grad():
                return model(x)

        return Instance(call, load)


def find_affine_parameters(model, shape):
    """The model's parameters named ...weight and ...bias of `shape` (one each), else None."""
    weight = bias = None
    for name, param in model.named_parameters():
        if tuple(param.shape) != shape:
            continue
        if name.endswith("weight") and weight is None:
            weight = param
        elif name.endswith("bias") and bias is None:
            bias = param
    return weight, bias
