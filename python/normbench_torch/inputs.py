"""A problem's inputs on the GPU, as normbench makes them: element i (logical row-major index)
of tensor NAME for seed S is generated in float32 from the stream of (S, NAME) (checked at
start-up against the NumPy generator) or loaded from normbench's --save-tensors files, then
rounded to its dtype (x and residual: the problem's dtype; weight and bias: param_dtype) and,
for a channels-last GroupNorm, laid out as (N, spatial..., C): the logical values never depend
on the layout."""

import os

import numpy as np

from .dtypes import round_float32, torch_dtype
from .errors import UsageError
from .generator import NumpyBackend, generate, tensor_stream_key

CHUNK = 1 << 25  # elements per slab of generation, fingerprints and reference
PARAMETERS = ("weight", "bias")


def input_dtype(p, name):
    return p["param_dtype"] if name in PARAMETERS else p["dtype"]


def channels_last_order(ndim):
    """The logical dims (N, C, spatial...) in the order a channels-last tensor stores them."""
    return (0,) + tuple(range(2, ndim)) + (1,)


def logical_order(ndim):
    """The inverse: a channels-last array's dims (N, spatial..., C) in the logical order."""
    return (0, ndim - 1) + tuple(range(1, ndim - 1))


def allocate_inputs(torch, p, device):
    """{name: empty tensor} for every input of the problem: x and residual of the logical
    shape in the problem's dtype (channels-last for nhwc: as torch.channels_last for 4-D, the
    same (N, spatial..., C) storage for any rank), weight and bias of param_shape."""
    tensors = {}
    for name in p["inputs"]:
        dtype = torch_dtype(torch, input_dtype(p, name))
        if name in PARAMETERS:
            tensors[name] = torch.empty(p["param_shape"], dtype=dtype, device=device)
        elif p["layout"] == "nhwc":
            shape = p["shape"]
            stored = [shape[d] for d in channels_last_order(len(shape))]
            tensors[name] = torch.empty(stored, dtype=dtype, device=device).permute(logical_order(len(shape)))
        else:
            tensors[name] = torch.empty(p["shape"], dtype=dtype, device=device)
    return tensors


def logical_slabs(tensor):
    """(first, view): views of `tensor` that cover it, each about CHUNK elements, view holding
    logical elements [first, first + view.numel()) (in the logical order when flattened)."""
    if tensor.is_contiguous():
        flat = tensor.view(-1)
        for first in range(0, flat.numel(), CHUNK):
            yield first, flat[first:first + CHUNK]
        return
    # A channels-last x: whole samples, or runs of whole channels of one sample.
    samples, sample = tensor.shape[0], tensor[0].numel()
    if sample <= CHUNK:
        step = CHUNK // sample
        for n0 in range(0, samples, step):
            yield n0 * sample, tensor[n0:n0 + step]
        return
    channels = tensor.shape[1]
    plane = sample // channels
    step = max(1, CHUNK // plane)
    for n in range(samples):
        for c0 in range(0, channels, step):
            yield (n * channels + c0) * plane, tensor[n, c0:c0 + step]


def self_check_generator(backend, problems):
    """The GPU generator against the NumPy one on the first and last elements of every input
    stream, and torch's rounding to each input's dtype against the NumPy rounding."""
    for p in problems:
        for name in p["inputs"]:
            dist, dtype = p["distributions"][name], input_dtype(p, name)
            key = tensor_stream_key(p["seed"], name)
            for first in (0, max(0, p["num_elements"] - 4096)):
                values = generate(backend, dist, key, first, 4096)
                gpu = backend.f32(values).cpu().numpy()
                ref = generate(NumpyBackend(), dist, key, first, 4096)
                ulps = np.abs(gpu.view(np.int32).astype(np.int64) - ref.view(np.int32).astype(np.int64))
                if (dist["dist"] != "normal" and ulps.max() > 0) or ulps.max() > 1:
                    raise RuntimeError("generator self-check failed for %s/%s at %d: GPU and NumPy differ by %d ulp"
                                       % (p["id"], name, first, ulps.max()))
                rounded = backend.round_to(values, dtype).cpu().numpy()
                expected = round_float32(gpu, dtype)
                if not np.array_equal(rounded.view(np.uint32), expected.view(np.uint32)):
                    raise RuntimeError("rounding self-check failed for %s/%s at %d: torch's float32 -> %s "
                                       "differs from round-to-nearest-even" % (p["id"], name, first, dtype))


def fill_generated(backend, tensor, dist, key):
    for first, view in logical_slabs(tensor):
        values = generate(backend, dist, key, first, view.numel())
        view.copy_(values.to(view.dtype).view(view.shape))


def load_npy_into(torch, tensor, path, dtype):
    """A float32 .npy of the logical shape into `tensor`; its values must be `dtype` values
    (normbench writes low-precision tensors widened exactly)."""
    try:
        array = np.load(path, mmap_mode="r")
    except (OSError, ValueError) as e:
        raise UsageError("%s: cannot read .npy file (%s)" % (path, e))
    if array.dtype != np.float32 or list(array.shape) != list(tensor.shape):
        raise UsageError("%s: expected float32 of shape %s, got %s of shape %s"
                         % (path, list(tensor.shape), array.dtype, list(array.shape)))
    source = array.reshape(-1)
    for first, view in logical_slabs(tensor):
        piece = np.array(source[first:first + view.numel()])  # a writable copy of one slab
        if not np.array_equal(round_float32(piece, dtype).view(np.uint32), piece.view(np.uint32)):
            raise UsageError("%s: holds values that are not %s values (normbench saves them widened "
                             "exactly)" % (path, dtype))
        view.copy_(torch.from_numpy(piece).view(view.shape))


def fill_inputs(torch, backend, from_tensors, p, trial, seed, tensors):
    """Every input of one trial into `tensors`: generated, or loaded from
    DIR/<problem id>/trial<k>/<name>.npy (normbench run --save-tensors DIR)."""
    for name in p["inputs"]:
        if from_tensors:
            load_npy_into(torch, tensors[name],
                          os.path.join(from_tensors, p["id"], "trial%d" % trial, name + ".npy"),
                          input_dtype(p, name))
        else:
            fill_generated(backend, tensors[name], p["distributions"][name], tensor_stream_key(seed, name))
