"""The float64 reference of every op, as normbench's (reference/, BRIEF semantics), written
once for two array libraries: torch on the GPU (the run) and NumPy (the CPU tests). It works
on a slab of whole segments (LayerNorm/RMSNorm rows, GroupNorm groups of whole samples) in the
logical order, from the inputs' exact values in their dtype:

  layer_norm             (x - mean) / sqrt(biased var + eps) * w + b   (no w: * 1, no b: + 0)
  group_norm             the same per group, w and b per channel
  layer_norm_gelu_scale  gelu_erf(layer_norm(x)) * scale
  rms_norm               x / sqrt(mean(x^2) + eps) * w
  add_rms_norm           s = x + residual (exact, the reference of output s); y = rms_norm of s
                         as PyTorch stores it: the float32 sum rounded once to the dtype
"""

import math

import numpy as np

from .dtypes import round_float32

CENTERED_OPS = ("layer_norm", "group_norm", "layer_norm_gelu_scale")


class NumpyMath:
    """Array operations on NumPy arrays; inputs are float32 arrays of the dtype's values."""

    def __init__(self, dtype="float32"):
        self.dtype = dtype

    def f64(self, a):
        return np.asarray(a, dtype=np.float64)

    def mean_rows(self, a):
        return a.mean(axis=1, keepdims=True)

    def sqrt(self, a):
        return np.sqrt(a)

    def erf(self, a):
        return np.vectorize(math.erf, otypes=[np.float64])(a)

    def stored_sum(self, x, r):
        s = np.asarray(x, dtype=np.float32) + np.asarray(r, dtype=np.float32)
        return round_float32(s, self.dtype).astype(np.float64)

    # verification
    def isfinite(self, a):
        return np.isfinite(a)

    def isnan(self, a):
        return np.isnan(a)

    def where(self, c, a, b):
        return np.where(c, a, b)

    def count(self, mask):
        return int(np.count_nonzero(mask))

    def max(self, a):
        return float(a.max())

    def sum(self, a):
        return float(a.sum())

    def first_true(self, mask, k):
        return np.flatnonzero(mask)[:k].tolist()

    def item(self, a, i):
        return float(a[i])

    # accuracy in ULPs (app/check/accuracy.cpp)
    def ulp_at(self, ref, dtype):
        mantissa, least = ULP_GEOMETRY[dtype]
        _, exponent = np.frexp(np.abs(ref))
        return np.ldexp(1.0, np.maximum(exponent - 1, least) - mantissa)

    def rounded(self, ref, dtype):
        return round_float32(np.asarray(ref, dtype=np.float32), dtype).astype(np.float64)

    def bin_counts(self, bins, n):
        return np.bincount(bins.astype(np.int64), minlength=n).tolist()

    def floor_clamped(self, a, top):
        return np.minimum(np.floor(a), top)


class TorchMath(NumpyMath):
    """The same on torch tensors (of the problem's dtype; the sum of add_rms_norm is rounded by
    torch's own .to(), as PyTorch's x + residual stores it)."""

    def __init__(self, torch):
        self.torch = torch

    def f64(self, a):
        return a.to(self.torch.float64)

    def mean_rows(self, a):
        return a.mean(dim=1, keepdim=True)

    def sqrt(self, a):
        return self.torch.sqrt(a)

    def erf(self, a):
        return self.torch.erf(a)

    def stored_sum(self, x, r):
        return (x.float() + r.float()).to(x.dtype).to(self.torch.float64)

    def isfinite(self, a):
        return self.torch.isfinite(a)

    def isnan(self, a):
        return self.torch.isnan(a)

    def where(self, c, a, b):
        return self.torch.where(c, a, b)

    def count(self, mask):
        return int(mask.sum())

    def max(self, a):
        return float(a.max())

    def sum(self, a):
        return float(a.sum())

    def first_true(self, mask, k):
        return self.torch.nonzero(mask).view(-1)[:k].tolist()

    def item(self, a, i):
        return float(a[i])

    def ulp_at(self, ref, dtype):
        mantissa, least = ULP_GEOMETRY[dtype]
        _, exponent = self.torch.frexp(ref.abs())
        exponent = self.torch.clamp(exponent - 1, min=least) - mantissa
        return self.torch.ldexp(self.torch.ones_like(ref), exponent)

    def rounded(self, ref, dtype):
        t = {"bfloat16": self.torch.bfloat16, "float16": self.torch.float16}[dtype]
        return ref.float().to(t).to(self.torch.float64)

    def bin_counts(self, bins, n):
        return self.torch.bincount(bins.to(self.torch.int64), minlength=n).tolist()

    def floor_clamped(self, a, top):
        return self.torch.clamp(self.torch.floor(a), max=top)


# Significand bits after the point and the least normal exponent of the 16-bit types.
ULP_GEOMETRY = {"bfloat16": (7, -126), "float16": (10, -14)}


def expected_rows(m, p, x, residual=None, weight=None, bias=None):
    """{output name: float64 reference, flat in the logical order} of the segments in the 2-D
    `x` (segments x segment_size; GroupNorm: whole samples) and `residual` (the same rows)."""
    eps = p["eps"]
    out = {}
    if p["op"] == "add_rms_norm":
        out["s"] = (m.f64(x) + m.f64(residual)).reshape(-1)
        xd = m.stored_sum(x, residual)
    else:
        xd = m.f64(x)
    if p["op"] in CENTERED_OPS:
        d = xd - m.mean_rows(xd)
        y = d * (1.0 / m.sqrt(m.mean_rows(d * d) + eps))
    else:
        y = xd / m.sqrt(m.mean_rows(xd * xd) + eps)
    if weight is not None or bias is not None:
        if p["op"] == "group_norm":
            c = p["channels"]
            y = y.reshape(-1, c, p["spatial"])
            param = lambda t: m.f64(t).reshape(1, c, 1)  # noqa: E731
        else:
            param = lambda t: m.f64(t).reshape(1, p["segment_size"])  # noqa: E731
        if weight is not None:
            y = y * param(weight)
        if bias is not None:
            y = y + param(bias)
    if p["op"] == "layer_norm_gelu_scale":
        y = 0.5 * y * (1.0 + m.erf(y * 0.7071067811865476)) * p["scale"]
    out["y"] = y.reshape(-1)
    return out
