"""A problem's inputs on the GPU: generated there (checked at start-up against the NumPy
generator) or loaded from normbench's --save-tensors files."""

import os

import numpy as np

from .errors import UsageError
from .generator import NumpyBackend, generate, tensor_stream_key

CHUNK = 1 << 25  # elements per slab of generation, fingerprints and reference


def self_check_generator(backend, problems):
    """The GPU generator against the NumPy one on the first elements of every input stream."""
    for p in problems:
        for name, dist in p["inputs"].items():
            key = tensor_stream_key(p["seed"], name)
            for first in (0, max(0, p["num_elements"] - 4096)):
                gpu = backend.f32(generate(backend, dist, key, first, 4096)).cpu().numpy()
                ref = generate(NumpyBackend(), dist, key, first, 4096)
                ulps = np.abs(gpu.view(np.int32).astype(np.int64) - ref.view(np.int32).astype(np.int64))
                if (dist["dist"] != "normal" and ulps.max() > 0) or ulps.max() > 1:
                    raise RuntimeError("generator self-check failed for %s/%s at %d: GPU and NumPy differ by %d ulp"
                                       % (p["id"], name, first, ulps.max()))


def fill_generated(backend, tensor, dist, key):
    flat = tensor.view(-1)
    for first in range(0, flat.numel(), CHUNK):
        n = min(CHUNK, flat.numel() - first)
        flat[first:first + n].copy_(generate(backend, dist, key, first, n))


def load_npy_into(torch, tensor, path):
    try:
        array = np.load(path, mmap_mode="r")
    except (OSError, ValueError) as e:
        raise UsageError("%s: cannot read .npy file (%s)" % (path, e))
    if array.dtype != np.float32 or list(array.shape) != list(tensor.shape):
        raise UsageError("%s: expected float32 of shape %s, got %s of shape %s"
                         % (path, list(tensor.shape), array.dtype, list(array.shape)))
    flat, source = tensor.view(-1), array.reshape(-1)
    for first in range(0, flat.numel(), CHUNK):
        piece = np.array(source[first:first + CHUNK])  # a writable copy of one slab
        flat[first:first + piece.size].copy_(torch.from_numpy(piece))


def fill_inputs(torch, backend, from_tensors, p, trial, seed, tensors):
    """x, weight and bias of one trial into `tensors`: generated, or loaded from
    DIR/<problem id>/trial<k>/<name>.npy (normbench run --save-tensors DIR)."""
    names = ["x"] + (["weight", "bias"] if p["affine"] else [])
    for name in names:
        if from_tensors:
            load_npy_into(torch, tensors[name],
                          os.path.join(from_tensors, p["id"], "trial%d" % trial, name + ".npy"))
        else:
            fill_generated(backend, tensors[name], p["inputs"][name], tensor_stream_key(seed, name))
