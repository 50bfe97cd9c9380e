"""The Python candidates normbench runs, each built once per problem by the bridge:

  torch.eager         torch.nn.functional: layer_norm, group_norm, rms_norm; layer_norm_gelu_scale
                      as gelu(layer_norm(x), approximate='none') * scale; add_rms_norm as
                      s = x + residual; y = rms_norm(s), returning (y, s); channel_rms_norm as
                      KernelBench's x / sqrt(mean(x^2, dim=1) + eps) (in float32 for 16-bit x);
                      group_norm_silu as silu(group_norm(x)), as diffusion UNets run it; the
                      backward ops by PyTorch's own backward kernels (backward_function),
                      add_rms_norm_backward as rms_norm's plus ds_out
  torch.compile       torch.compile of the same function (dynamic=False, fullgraph=True)
  python.<m>.<f>      --python module:function, called as function(x, weight, bias, problem)
                      with torch tensors on the GPU (weight None when not affine, bias None
                      without one; x channels-last for an nhwc problem) and the problem (a dict:
                      op, shape, eps, dtype, param_dtype, layout, has_bias, ...); returns y. For
                      add_rms_norm: function(x, weight, bias, problem, residual=r) returns (y, s).
                      A function with a parameter named `out` is given normbench's output
                      instead (y, or (y, s) for add_rms_norm), writes it and returns nothing.
                      A backward op's: function(x, dy, weight, mean, rstd, problem) returning
                      its outputs (dx, dweight, dbias: those of problem["outputs"]) as a tuple,
                      or writing the tuple `out`; mean is None for the RMSNorm ones.
                      add_rms_norm_backward's gets x = s and also `ds_out=`.
  kernelbench.<stem>  --kernelbench FILE.py: a KernelBench-style ModelNew (kernelbench.py)

A candidate that cannot take a problem says why (NotSupported: status not_supported); one that
fails to import, compile or build raises CandidateError (status error, with the reason).
"""

import importlib
import inspect
import os
import sys


class NotSupported(Exception):
    """The candidate does not compute this problem's op: status not_supported."""


class CandidateError(Exception):
    """The candidate failed to import, compile or build: status error."""


# The most characters of a reason in an answer: a traceback's last line fits; a submission's
# 10 MB message does not belong in every problem's report.
MAX_REASON = 1000


def safe_text(text):
    """text as normbench's JSON parser takes it: lone surrogates (Python's stand-in for bytes
    that are not UTF-8, as in os.fsdecode's names) written out as \\udcff, since strict UTF-8
    refuses them, and at most MAX_REASON characters."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= MAX_REASON else "%s... (%d characters)" % (text[:MAX_REASON],
                                                                            len(text))


def describe_error(e):
    """'Type: the last line of its message'. Never raises: a submission's exception may raise,
    exit or interrupt from its __str__, and this runs where nothing may escape to the worker."""
    try:
        name = type(e).__name__
        name = name if isinstance(name, str) else "an exception"
    except BaseException:
        name = "an exception"
    try:
        lines = str(e).strip().splitlines()
        return safe_text("%s: %s" % (name, lines[-1] if lines else ""))
    except BaseException:
        return safe_text("%s (its message cannot be read)" % name)


def message_of(e):
    """str(e) of the bridge's own exceptions (NotSupported, CandidateError), bounded; a
    submission may raise a subclass of them whose str() raises."""
    try:
        return safe_text(str(e))
    except BaseException:
        return describe_error(e)


def torch_dtype(torch, name):
    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


class Built:
    """A candidate built for one problem. call(x, weight, bias, residual, out) returns y or
    (y, s), or writes `out` (y or (y, s)) when in_place; a backward op's call(x, dy, weight,
    mean, rstd, out) returns or writes the tuple of its outputs (add_rms_norm_backward's is
    also given ds_out=, by name)."""

    def __init__(self, call, in_place=False, bind=None):
        self.call = call
        self.in_place = in_place
        # bind(weight, bias): called once with normbench's weight and bias tensors (a
        # KernelBench model's parameters become views of them).
        self.bind = bind or (lambda weight, bias: None)


def op_function(p):
    """The problem's op in torch.nn.functional: f(x, weight, bias, residual) -> y, or (y, s)
    for add_rms_norm."""
    import torch.nn.functional as F
    eps, op = p["eps"], p["op"]
    if op == "group_norm":
        groups = p["groups"]
        return lambda x, w, b, r: F.group_norm(x, groups, w, b, eps)
    if op == "group_norm_silu":
        groups = p["groups"]
        return lambda x, w, b, r: F.silu(F.group_norm(x, groups, w, b, eps))
    if op == "channel_rms_norm":
        return channel_rms_norm(p)
    shape = tuple(p["normalized_shape"] or ())
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


def channel_rms_norm(p):
    """KernelBench's RMSNorm (#36): x / sqrt(mean(x^2, dim=1) + eps), times weight[c] when
    affine; computed in float32 for 16-bit x (as PyTorch's own norms accumulate)."""
    import torch
    eps = p["eps"]

    def f(x, w, b, r):
        xf = x.float()
        y = xf / torch.sqrt(torch.mean(xf * xf, dim=1, keepdim=True) + eps)
        if w is not None:
            y = y * w.float().view([1, -1] + [1] * (x.dim() - 2))
        return y.to(x.dtype)
    return f


def in_dtype_of_x(fn):
    """fn with y cast to x's dtype where PyTorch returns another (its composite rms_norm of 2.5
    and earlier multiplies a bfloat16 result by a float32 weight and returns float32). The
    check costs a comparison per call; the cast, where needed, is part of the call."""
    def call(x, w, b, r):
        out = fn(x, w, b, r)
        y = out[0] if isinstance(out, tuple) else out
        if y.dtype == x.dtype:
            return out
        return (y.to(x.dtype),) + tuple(out[1:]) if isinstance(out, tuple) else y.to(x.dtype)
    return call


def refused_dtypes(p, e):
    """PyTorch declining the problem's dtypes (its group_norm takes no float32 weight with
    bfloat16 x: "expected scalar type BFloat16 but found Float") is PyTorch not supporting the
    problem, not a failure of the candidate."""
    try:
        text = str(e)
    except BaseException:  # an exception whose str() raises is no dtype refusal of PyTorch's
        return None
    if "scalar type" in text or "dtype" in text:
        return NotSupported("PyTorch's %s refuses %s weights with %s data: %s" % (
            p["op"], p["param_dtype"], p["dtype"], describe_error(e)))
    return None


def backward_call(fn, p):
    """Built's call of a backward function fn(x, dy, weight, mean, rstd): add_rms_norm_backward's
    also takes ds_out, which the bridge passes by name."""
    if p["op"] == "add_rms_norm_backward":
        return lambda x, dy, w, mean, rstd, out, ds_out: fn(x, dy, w, mean, rstd, ds_out)
    return lambda x, dy, w, mean, rstd, out: fn(x, dy, w, mean, rstd)


def torch_eager(torch, p):
    if p["backward"]:
        return Built(backward_call(backward_function(torch, p), p))
    fn = in_dtype_of_x(op_function(p))
    return Built(lambda x, w, b, r, out: fn(x, w, b, r))


def torch_compile(torch, p, mode):
    import torch._dynamo
    torch._dynamo.reset()  # a fresh cache per problem: no recompile limit across problems
    compiled = lambda f: torch.compile(f, mode=mode, dynamic=False, fullgraph=True)
    if p["backward"]:
        return Built(backward_call(compiled(backward_function(torch, p)), p))
    fn = compiled(in_dtype_of_x(op_function(p)))
    return Built(lambda x, w, b, r, out: fn(x, w, b, r))


def _outputs(p, x, w, dx, dweight, dbias):
    """The outputs the problem has, in its order (dx; dweight when affine; dbias with a bias),
    in the problem's types (dx of x's, the parameter gradients of the weight's: torch.compile's
    decompositions return other types where weights and data differ), and dx alone as a
    tensor, not a tuple of one."""
    typed = {"dx": dx.to(x.dtype)}
    if w is not None:
        typed.update(dweight=None if dweight is None else dweight.to(w.dtype),
                     dbias=None if dbias is None else dbias.to(w.dtype))
    outs = tuple(typed[name] for name in p["outputs"])
    return outs if len(outs) > 1 else outs[0]


def _stat_view_shape(p):
    """The shape PyTorch's layer_norm and rms_norm give their saved statistics: the dims before
    normalized_shape, then a 1 for each normalized dim (normbench's are the leading dims)."""
    axis = len(p["shape"]) - len(p["normalized_shape"])
    return list(p["shape"][:axis]) + [1] * len(p["normalized_shape"])


def backward_function(torch, p):
    """The backward op by PyTorch's own backward kernels, f(x, dy, weight, mean, rstd) -> the
    problem's outputs: aten.native_layer_norm_backward, aten.native_group_norm_backward and
    aten._fused_rms_norm_backward (where this PyTorch has it; else RMSNorm's gradient formula in
    torch ops), which add_rms_norm_backward's f(x, dy, weight, mean, rstd, ds_out) calls on s
    (its x) before adding ds_out to dx. The float32 statistics are viewed as PyTorch's forward returns them; its CUDA
    GroupNorm reads them, and x and dy, in the data's type and NCHW order, so they are converted
    inside the call, as a training step would hand them over."""
    op, affine, bias = p["op"], p["affine"], p["has_bias"]
    if op == "layer_norm_backward":
        shape, keep = list(p["normalized_shape"]), _stat_view_shape(p)
        # Only its shape and dtype are read, to make dbias.
        bias_like = torch.empty(p["param_shape"], dtype=torch_dtype(torch, p["param_dtype"]),
                                device="cuda") if bias else None

        def layer_norm_backward(x, dy, w, mean, rstd):
            dx, dw, db = torch.ops.aten.native_layer_norm_backward(
                dy, x, shape, mean.view(keep), rstd.view(keep), w, bias_like, [True, affine, bias])
            return _outputs(p, x, w, dx, dw, db)
        return layer_norm_backward
    if op == "group_norm_backward":
        n, c, groups = p["shape"][0], p["shape"][1], p["groups"]
        spatial = 1
        for extent in p["shape"][2:]:
            spatial *= extent

        def group_norm_backward(x, dy, w, mean, rstd):
            dx, dw, db = torch.ops.aten.native_group_norm_backward(
                dy.contiguous(), x.contiguous(), mean.to(x.dtype), rstd.to(x.dtype), w, n, c,
                spatial, groups, [True, affine, bias])
            return _outputs(p, x, w, dx, dw, db)
        return group_norm_backward
    if op in ("rms_norm_backward", "add_rms_norm_backward"):
        return rms_norm_backward(torch, p)
    raise NotSupported("PyTorch has no backward op for %s" % op)


def rms_norm_backward(torch, p):
    """rms_norm_backward, and add_rms_norm_backward's rms_norm part: its x is s = x + residual,
    and ds_out (the gradient that reached s itself) is added to dx as autograd adds the gradients
    of s's two uses. ds_out is None for rms_norm_backward."""
    shape, keep, affine = list(p["normalized_shape"]), _stat_view_shape(p), p["affine"]
    fused = getattr(torch.ops.aten, "_fused_rms_norm_backward", None)

    def finish(x, w, dx, dw, ds_out):
        return _outputs(p, x, w, dx if ds_out is None else dx + ds_out, dw, None)
    if fused is not None:
        def fused_backward(x, dy, w, mean, rstd, ds_out=None):
            dx, dw = fused(dy, x, shape, rstd.view(keep), w, [True, affine])
            return finish(x, w, dx, dw, ds_out)
        return fused_backward
    normalized = tuple(range(-len(shape), 0))
    rows = tuple(range(len(p["shape"]) - len(shape)))

    def formula(x, dy, w, mean, rstd, ds_out=None):
        # dx = rstd (g - xhat mean(g xhat)), g = dy w, xhat = x rstd; dweight = sum dy xhat.
        r = rstd.view(keep)
        xhat, grad = x.float() * r, dy.float()
        g = grad * w.float() if w is not None else grad
        dx = r * (g - xhat * (g * xhat).mean(dim=normalized, keepdim=True))
        dw = None
        if affine:
            dw = (grad * xhat).sum(dim=rows) if rows else grad * xhat
        return finish(x, w, dx, dw, ds_out)
    return formula


def import_callable(spec):
    """module:function, imported from the working directory or the module path."""
    module, function = spec.split(":")
    try:
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        fn = getattr(importlib.import_module(module), function)
    except BaseException as e:  # the submission's own import: anything can happen
        raise CandidateError("cannot import %s: %s" % (spec, describe_error(e)))
    if not callable(fn):
        raise CandidateError("%s is not callable" % spec)
    return fn


def callable_problem(p):
    """The problem as a function sees it: a fresh dict each problem (a function that changes it
    changes nothing here)."""
    keys = ("op", "shape", "normalized_shape", "groups", "eps", "scale", "affine", "has_bias",
            "dtype", "param_dtype", "layout", "outputs")
    return {k: (list(p[k]) if isinstance(p[k], list) else p[k]) for k in keys}


def python_function(fn, p):
    problem = callable_problem(p)
    try:
        in_place = "out" in inspect.signature(fn).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        in_place = False
    if p["backward"] and p["op"] == "add_rms_norm_backward":
        if in_place:
            return Built(lambda x, dy, w, mean, rstd, out, ds_out: fn(
                x, dy, w, mean, rstd, problem, ds_out=ds_out, out=out), True)
        return Built(lambda x, dy, w, mean, rstd, out, ds_out: fn(x, dy, w, mean, rstd, problem,
                                                                  ds_out=ds_out))
    if p["backward"]:
        if in_place:
            return Built(lambda x, dy, w, mean, rstd, out: fn(x, dy, w, mean, rstd, problem,
                                                             out=out), True)
        return Built(lambda x, dy, w, mean, rstd, out: fn(x, dy, w, mean, rstd, problem))
    if p["has_residual"]:
        if in_place:
            return Built(lambda x, w, b, r, out: fn(x, w, b, problem, residual=r, out=out), True)
        return Built(lambda x, w, b, r, out: fn(x, w, b, problem, residual=r))
    if in_place:
        return Built(lambda x, w, b, r, out: fn(x, w, b, problem, out=out), True)
    return Built(lambda x, w, b, r, out: fn(x, w, b, problem))
