"""The counter-based input generator, as normbench's (app/util/hashing.hpp,
app/inputs/inputs.cpp): element i of tensor `name` for seed s is a pure function of (s, name, i),
so PyTorch gets exactly the inputs `normbench run` builds.

key = mix64(mix64(s) ^ fnv1a64(name)), bits(c) = mix64(key + (c + 1) * 0x9e3779b97f4a7c15), with
mix64 SplitMix64's finaliser; uniform = float32(bits(i) >> 40) * 2^-24 (scaled to [low, high) in
double, rounded to float32, kept below high); normal = Box-Muller on bits(2i) and bits(2i+1),
cosine branch; constant = the value. Uniform and constant values are bit-identical to
normbench's; a normal value goes through log, cos and sqrt, whose last bit may differ between
glibc, NumPy and CUDA (none did in 16.8 M NumPy and 1.5 M CUDA values compared).

Inputs of a bfloat16 or float16 problem are these float32 values rounded to the dtype (dtypes.py).
NumPy only; TorchBackend takes a torch module and device when the GPU generates the values.
"""

import numpy as np

from .dtypes import round_float32, torch_dtype

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MIX_1 = 0xBF58476D1CE4E5B9
MIX_2 = 0x94D049BB133111EB


def mix64(z):
    """SplitMix64's finaliser on a Python int."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * MIX_1) & MASK64
    z = ((z ^ (z >> 27)) * MIX_2) & MASK64
    return z ^ (z >> 31)


def fnv1a64(data, h=0xCBF29CE484222325):
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & MASK64
    return h


def tensor_stream_key(seed, name):
    return mix64(mix64(seed) ^ fnv1a64(name.encode("utf-8")))


def _signed(v):
    """A 64-bit pattern as the int64 with the same bits."""
    v &= MASK64
    return v - (1 << 64) if v >> 63 else v


_MIX_1_S, _MIX_2_S, _GAMMA_S = _signed(MIX_1), _signed(MIX_2), _signed(GOLDEN_GAMMA)


def _shr(z, k):
    """Logical right shift of int64 arrays (NumPy and torch shift int64 arithmetically)."""
    return (z >> k) & ((1 << (64 - k)) - 1)


def _mix64_array(z):
    # int64 multiplication wraps in NumPy arrays and in torch, as uint64 would.
    z = (z ^ _shr(z, 30)) * _MIX_1_S
    z = (z ^ _shr(z, 27)) * _MIX_2_S
    return z ^ _shr(z, 31)


def _stream_bits(key, counters):
    return _mix64_array((counters + 1) * _GAMMA_S + _signed(key))


class NumpyBackend:
    """The generator's array operations in NumPy (int64, float32, float64 arrays)."""

    def arange(self, first, n):
        return np.arange(first, first + n, dtype=np.int64)

    def f32(self, a):
        return a.astype(np.float32)

    def f64(self, a):
        return a.astype(np.float64)

    def full_f32(self, n, value):
        return np.full(n, np.float32(value), dtype=np.float32)

    def min_f32(self, a, bound):
        return np.minimum(a, np.float32(bound))

    log, cos, sqrt = staticmethod(np.log), staticmethod(np.cos), staticmethod(np.sqrt)

    def round_to(self, a, dtype):
        """float32 values rounded to `dtype` (nearest even), as float32."""
        return round_float32(a, dtype)


class TorchBackend:
    """The same operations on torch tensors on one device."""

    def __init__(self, torch, device):
        self.torch, self.device = torch, device

    def arange(self, first, n):
        return self.torch.arange(first, first + n, dtype=self.torch.int64, device=self.device)

    def f32(self, a):
        return a.to(self.torch.float32)

    def f64(self, a):
        return a.to(self.torch.float64)

    def full_f32(self, n, value):
        return self.torch.full((n,), float(np.float32(value)), dtype=self.torch.float32, device=self.device)

    def min_f32(self, a, bound):
        return self.torch.minimum(a, self.torch.tensor(float(bound), dtype=self.torch.float32, device=self.device))

    def log(self, a):
        return self.torch.log(a)

    def cos(self, a):
        return self.torch.cos(a)

    def sqrt(self, a):
        return self.torch.sqrt(a)

    def round_to(self, a, dtype):
        return a.to(torch_dtype(self.torch, dtype)).to(self.torch.float32)


def generate(backend, dist, key, first, n):
    """Elements [first, first + n) of stream `key` drawn from `dist` (a parsed distribution:
    {"dist": "uniform", "low", "high"} | {"dist": "normal", "mean", "std"} |
    {"dist": "constant", "value"}, the first two with optional "outlier_every" and
    "outlier_value"), as a float32 array of the backend."""
    return _with_outliers(_draw(backend, dist, key, first, n), dist, first)


def _draw(backend, dist, key, first, n):
    kind = dist["dist"]
    if kind == "constant":
        return backend.full_f32(n, dist["value"])
    index = backend.arange(first, n)
    if kind == "uniform":
        u = backend.f32(_shr(_stream_bits(key, index), 40)) * 2.0 ** -24  # exact in float32
        low, high = dist["low"], dist["high"]
        if low == 0.0 and high == 1.0:
            return u
        below_high = np.nextafter(np.float32(high), np.float32(-np.inf))
        return backend.min_f32(backend.f32(low + (high - low) * backend.f64(u)), below_high)
    if kind == "normal":
        u1 = backend.f64(_shr(_stream_bits(key, 2 * index), 11) + 1) * 2.0 ** -53
        u2 = backend.f64(_shr(_stream_bits(key, 2 * index + 1), 11)) * 2.0 ** -53
        z = backend.sqrt(-2.0 * backend.log(u1)) * backend.cos(6.283185307179586 * u2)
        return backend.f32(dist["mean"] + dist["std"] * z)
    raise ValueError("unknown distribution " + repr(kind))


def _with_outliers(values, dist, first):
    """Elements first + j that are multiples of outlier_every set to outlier_value (rounded to
    float32, as normbench's static_cast<float>)."""
    every = dist.get("outlier_every", 0)
    if every:
        values[(every - first % every) % every::every] = float(np.float32(dist["outlier_value"]))
    return values


def generate_numpy(dist, seed, name, first, n):
    """NumPy convenience: elements [first, first + n) of tensor `name` for `seed`."""
    return generate(NumpyBackend(), dist, tensor_stream_key(seed, name), first, n)
