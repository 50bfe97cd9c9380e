"""Element types of normbench's problems (kernels/problem_shape.hpp DType) and how inputs reach
them: a float32 value generated (or loaded) as normbench makes it, then rounded to the
problem's dtype by round-to-nearest-even, as torch's .to() and normbench's from_float<T> do.

NumPy has no bfloat16: round_float32 returns the rounded values as float32 (a bfloat16 or
float16 value widens to float32 exactly), which is also what normbench's --save-tensors writes.
The GPU rounds with torch's own .to(); the start-up self-check compares the two.
"""

import numpy as np

DTYPES = ("float32", "bfloat16", "float16")
ELEMENT_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}


def check_dtype(name, what="dtype"):
    if name not in DTYPES:
        raise ValueError("unknown %s %r; this normbench_torch knows %s" % (what, name, ", ".join(DTYPES)))
    return name


def torch_dtype(torch, name):
    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


def round_bfloat16_bits(values):
    """float32 -> the 16 bits of the nearest bfloat16, ties to even (c10::BFloat16's
    round_to_nearest_even: add 0x7FFF plus the lowest kept bit, keep the upper half; a NaN
    becomes the canonical quiet NaN 0x7FC0). Overflow rounds to infinity and float32
    subnormals to bfloat16 subnormals, as the bit arithmetic does by itself."""
    a = np.ascontiguousarray(values, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return np.where(np.isnan(a), 0x7FC0, rounded).astype(np.uint16)


def bfloat16_bits_to_float32(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def round_float32(values, dtype):
    """float32 values rounded to `dtype` (nearest, ties to even), as float32 arrays."""
    a = np.asarray(values, dtype=np.float32)
    if dtype == "float32":
        return a
    if dtype == "float16":
        with np.errstate(over="ignore"):  # beyond 65520: infinity, as the cast says
            return a.astype(np.float16).astype(np.float32)
    if dtype == "bfloat16":
        return bfloat16_bits_to_float32(round_bfloat16_bits(a)).reshape(a.shape)
    raise ValueError("unknown dtype %r" % dtype)
