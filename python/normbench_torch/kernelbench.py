"""--kernelbench FILE.py: a KernelBench-style submission, whose ModelNew computes layer_norm or
group_norm. ModelNew is built per problem from its constructor's parameter names
(normalized_shape, num_features or num_channels, num_groups, eps, elementwise_affine or
affine), and normbench's weight and bias are loaded into its parameters of their shape before
each trial. Other ops are not_supported: KernelBench's RMSNorm normalizes over dim 1, not a
trailing normalized_shape (--callable takes those)."""

import importlib.util
import inspect
import os

from .candidates import CandidateError, Instance, NotSupported, describe_error
from .errors import UsageError


# KernelBench's models take these constructor parameters; the op they imply.
_LAYER_NORM_NAMES = {"normalized_shape"}
_GROUP_NORM_NAMES = {"num_groups"}
_CHANNEL_NAMES = {"num_features", "num_channels", "channels"}


def kernelbench_arguments(parameters, p):
    """The keyword arguments for ModelNew(...) on problem p, from its constructor's parameter
    names (a list of (name, has_default)); NotSupported when they imply another op."""
    if p["op"] not in ("layer_norm", "group_norm"):
        why = (" (a KernelBench RMSNorm normalizes over dim 1, not normbench's trailing "
               "normalized_shape)" if p["op"] in ("rms_norm", "add_rms_norm") else "")
        raise NotSupported("the KernelBench adapter takes LayerNorm and GroupNorm models only%s; "
                           "the problem is %s: use --callable" % (why, p["op"]))
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
                self._error = "cannot import %s: %s" % (self.path, describe_error(e))
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
                ", ".join("%s=%r" % kv for kv in kwargs.items()), describe_error(e)))
        weight, bias = find_affine_parameters(model, tuple(p["param_shape"]))
        missing = [n for n, want, got in (("weight", p["affine"], weight), ("bias", p["has_bias"], bias))
                   if want and got is None]
        if missing:
            raise NotSupported("ModelNew has no %s parameter of shape %s to load the problem's into"
                               % (" and ".join(missing), list(p["param_shape"])))

        def load(w, b):
            # copy_ widens a bfloat16 or float16 weight exactly into a float32 parameter; a
            # problem without a weight or bias gets 1s or 0s, which compute the same.
            with torch.no_grad():
                if weight is not None:
                    weight.copy_(w if w is not None else torch.ones_like(weight))
                if bias is not None:
                    bias.copy_(b if b is not None else torch.zeros_like(bias))

        def call(x, w, b, r):
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
