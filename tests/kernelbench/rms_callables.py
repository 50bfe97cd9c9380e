"""--callable functions for the RMSNorm ops in the GPU check (check_verdicts.py, on
low_precision.json): function(x, weight, bias, problem[, residual=r]) -> y or (y, s). The first
word of each docstring is its verdict on bfloat16 problems of rms_norm and add_rms_norm; on
other ops each raises (error)."""

import torch


def _check_op(problem):
    if problem["op"] not in ("rms_norm", "add_rms_norm"):
        raise ValueError("rms_callables computes rms_norm and add_rms_norm only")


def _normalize(v, weight, problem, mean_square):
    y = v * torch.rsqrt(mean_square + problem["eps"])
    return y * weight.float() if weight is not None else y


def right(x, weight, bias, problem, residual=None):
    """passed: float32 accumulation; s rounded once, and y normalizes s as stored."""
    _check_op(problem)
    s = (x.float() + residual.float()).to(x.dtype) if residual is not None else None
    v = (s if s is not None else x).float()
    dims = tuple(range(-len(problem["normalized_shape"]), 0))
    y = _normalize(v, weight, problem, v.pow(2).mean(dim=dims, keepdim=True)).to(x.dtype)
    return (y, s) if residual is not None else y


def low_precision_sum(x, weight, bias, problem, residual=None):
    """failed: sums the squares in x's dtype one element after another; in bfloat16 the sum
    stops growing near 256 (its spacing there is 2)."""
    _check_op(problem)
    s = (x.float() + residual.float()).to(x.dtype) if residual is not None else None
    v = (s if s is not None else x).float()
    row = 1
    for d in problem["normalized_shape"]:
        row *= d
    squares = (v * v).to(x.dtype).reshape(-1, row)
    total = torch.zeros(squares.shape[0], dtype=x.dtype, device=x.device)
    for i in range(row):
        total = total + squares[:, i]
    mean_square = (total.float() / row).reshape(list(x.shape[:x.dim() - len(problem["normalized_shape"])])
                                                + [1] * len(problem["normalized_shape"]))
    y = _normalize(v, weight, problem, mean_square).to(x.dtype)
    return (y, s) if residual is not None else y


def s_not_stored(x, weight, bias, problem, residual=None):
    """failed on add_rms_norm, passed on rms_norm: a right y, but x returned as s."""
    out = right(x, weight, bias, problem, residual)
    return (out[0], x.clone()) if residual is not None else out
