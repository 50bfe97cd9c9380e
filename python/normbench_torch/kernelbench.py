"""--kernelbench FILE.py: a KernelBench-style submission, whose ModelNew computes layer_norm or
group_norm, an InstanceNorm (group_norm with a group per channel) or KernelBench's RMSNorm over
dim 1 (channel_rms_norm). ModelNew is built per problem from its constructor's parameter names
(normalized_shape, num_features or num_channels, num_groups, eps, elementwise_affine or
affine), and its parameters of the problem's weight and bias shape become views of normbench's
weight and bias. A model that takes only a channel count (num_features) is an InstanceNorm or a
channel RMSNorm, by what its file names. Other ops are not_supported (--python takes those)."""

import importlib.util
import inspect
import os

from .candidates import Built, CandidateError, NotSupported, describe_error, torch_dtype


# KernelBench's models take these constructor parameters; the op they imply.
_LAYER_NORM_NAMES = {"normalized_shape"}
_GROUP_NORM_NAMES = {"num_groups"}
_CHANNEL_NAMES = {"num_features", "num_channels", "channels"}


# The ops a ModelNew whose constructor takes only a channel count may compute, by what its file
# names: KernelBench's RMSNorm (#36) normalizes over dim 1, its InstanceNorm (#34) is a GroupNorm
# with a group per channel.
_PER_CHANNEL_HINTS = {"channel_rms_norm": ("rmsnorm", "rms_norm", "rms"),
                      "instance_norm": ("instancenorm", "instance_norm")}
ADAPTED_OPS = ("layer_norm", "group_norm", "channel_rms_norm")


def per_channel_ops(source):
    """Which per-channel ops a file's text names (both when it names neither or both)."""
    text = (source or "").lower()
    named = {op for op, words in _PER_CHANNEL_HINTS.items() if any(w in text for w in words)}
    return named if len(named) == 1 else set(_PER_CHANNEL_HINTS)


def kernelbench_arguments(parameters, p, source=None):
    """The keyword arguments for ModelNew(...) on problem p, from its constructor's parameter
    names (a list of (name, has_default)) and, for a model that takes only a channel count, the
    op its file's text names; NotSupported when they imply another op."""
    if p["op"] not in ADAPTED_OPS:
        why = (" (a KernelBench RMSNorm normalizes over dim 1: that is channel_rms_norm)"
               if p["op"] in ("rms_norm", "add_rms_norm") else "")
        raise NotSupported("the KernelBench adapter takes LayerNorm, GroupNorm, InstanceNorm and "
                           "channel RMSNorm models only%s; the problem is %s: use --python"
                           % (why, p["op"]))
    names = {name for name, _ in parameters}
    instance = p["op"] == "group_norm" and p["groups"] == p["channels"]
    asked = "instance_norm" if instance else p["op"]
    if names & _GROUP_NORM_NAMES:
        implied = {"group_norm"}
    elif names & _LAYER_NORM_NAMES:
        implied = {"layer_norm"}
    elif names & _CHANNEL_NAMES:
        implied = per_channel_ops(source)
    else:
        raise NotSupported("ModelNew(%s) names neither normalized_shape, num_groups nor "
                           "num_features: cannot tell its op" % ", ".join(n for n, _ in parameters))
    if asked not in implied and not (instance and "group_norm" in implied):
        raise NotSupported("ModelNew computes %s, the problem is %s" % (
            " or ".join(sorted(implied)).replace("instance_norm", "an InstanceNorm"),
            "an InstanceNorm (group_norm, a group per channel)" if instance else p["op"]))
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


def load_model_class(path):
    """ModelNew of a KernelBench-style file, executed once per worker (which builds its
    load_inline extensions, if any)."""
    try:
        stem = os.path.splitext(os.path.basename(path))[0]
        name = "normbench_submission_" + "".join(c if c.isalnum() else "_" for c in stem)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:  # a name that is not FILE.py
            raise ImportError("%s is not a Python source file (FILE.py)" % path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        model = getattr(module, "ModelNew", None)
        if model is None:
            raise AttributeError("%s defines no ModelNew" % path)
        with open(path, encoding="utf-8", errors="replace") as f:
            model._normbench_source = f.read()
        return model
    except BaseException as e:  # the submission's own code: anything can happen
        raise CandidateError("cannot import %s: %s" % (path, describe_error(e)))


def kernelbench_model(torch, cls, p):
    """ModelNew built for problem p. Its weight and bias parameters become views of normbench's
    weight and bias (bind), in the problem's parameter dtype: the fresh inputs that normbench
    swaps in between timed samples reach the model as they reach every kernel, and no copy is
    made per call."""
    try:
        signature = inspect.signature(cls.__init__)
    except BaseException as e:  # a builtin's, or a __signature__ that is none
        raise CandidateError("cannot read the parameters of ModelNew's constructor, which tell "
                             "its op: %s" % describe_error(e))
    parameters = [(name, param.default is not inspect.Parameter.empty)
                  for name, param in list(signature.parameters.items())[1:]
                  if param.kind not in (param.VAR_POSITIONAL, param.VAR_KEYWORD)]
    kwargs = kernelbench_arguments(parameters, p, getattr(cls, "_normbench_source", None))
    try:
        model = cls(**kwargs).cuda().eval()
    except BaseException as e:
        raise CandidateError("ModelNew(%s) failed: %s" % (
            ", ".join("%s=%r" % kv for kv in kwargs.items()), describe_error(e)))
    weight, bias = find_affine_parameters(model, tuple(p["param_shape"]))
    missing = [n for n, want, got in (("weight", p["affine"], weight), ("bias", p["has_bias"], bias))
               if want and got is None]
    if missing:
        raise NotSupported("ModelNew has no %s parameter of shape %s to load the problem's into"
                           % (" and ".join(missing), list(p["param_shape"])))
    param_dtype = torch_dtype(torch, p["param_dtype"])

    def bind(w, b):
        # A parameter the problem has no tensor for keeps 1s (weight) or 0s (bias), which
        # compute the same as none.
        with torch.no_grad():
            for param, given, fill in ((weight, w, 1.0), (bias, b, 0.0)):
                if param is None:
                    continue
                param.requires_grad_(False)
                if given is not None:
                    param.data = given
                else:
                    param.data = torch.full_like(param.data, fill, dtype=param_dtype)

    def call(x, w, b, r, out):
        with torch.no_grad():
            return model(x)

    return Built(call, bind=bind)


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
