#!/usr/bin/env python3
"""normbench's float64 reference of the backward ops against PyTorch's float64 autograd: for
every problem of configs/smoke_backward.json, the inputs normbench makes and its dx, dweight and
dbias (written by the test-only reference_dump, no GPU needed) must equal the gradients
autograd computes for the forward op on the same values, L = sum(dy * y) (add_rms_norm's, whose
x is the sum s and an output too: L = sum(dy * y) + sum(ds_out * s)).

Skips (exit 77) with a message where PyTorch or NumPy is missing.

    NORMBENCH_REFERENCE_DUMP=build/tests/reference_dump python3 tests/python/test_backward_reference.py
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG = os.path.join(ROOT, "configs", "smoke_backward.json")
DUMP = os.environ.get("NORMBENCH_REFERENCE_DUMP",
                      os.path.join(ROOT, "build", "tests", "reference_dump"))

try:
    import numpy
    import torch
    import torch.nn.functional as F
except ImportError as e:
    numpy = torch = None
    MISSING = str(e)


def setting(config, problem, key, default):
    return problem.get(key, config.get("defaults", {}).get(key, default))


def autograd_gradients(config, problem, folder):
    """dx, dweight, dbias (those the problem has) of the forward op by float64 autograd."""
    load = lambda name: torch.from_numpy(numpy.load(os.path.join(folder, name + ".npy"))).double()
    op = problem["op"]
    affine = setting(config, problem, "affine", True)
    centered = op in ("layer_norm_backward", "group_norm_backward")  # the RMSNorm ops have no bias
    bias = affine and centered and problem.get("bias", True)
    eps = setting(config, problem, "eps", 1e-5)
    x = load("x").requires_grad_()
    dy = load("dy")
    w = load("weight").requires_grad_() if affine else None
    b = torch.zeros_like(w).requires_grad_() if bias else None
    if op == "layer_norm_backward":
        y = F.layer_norm(x, problem["normalized_shape"], w, b, eps)
    elif op == "group_norm_backward":
        y = F.group_norm(x, problem["groups"], w, b, eps)
    else:  # RMSNorm's; add_rms_norm_backward's x is the sum s it normalizes
        dims = tuple(range(-len(problem["normalized_shape"]), 0))
        y = x * torch.rsqrt((x * x).mean(dim=dims, keepdim=True) + eps)
        y = y * w if w is not None else y
    loss = (y * dy).sum()
    if op == "add_rms_norm_backward":
        loss = loss + (x * load("ds_out")).sum()
    loss.backward()
    gradients = {"dx": x.grad}
    if affine:
        gradients["dweight"] = w.grad
    if bias:
        gradients["dbias"] = b.grad
    return gradients


class BackwardReference(unittest.TestCase):
    def test_the_reference_is_pytorchs_float64_autograd(self):
        with open(CONFIG) as f:
            config = json.load(f)
        with tempfile.TemporaryDirectory() as out:
            done = subprocess.run([DUMP, CONFIG, out], capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            for problem in config["problems"]:
                folder = os.path.join(out, problem["id"])
                for name, expected in autograd_gradients(config, problem, folder).items():
                    ref = numpy.load(os.path.join(folder, "reference.%s.npy" % name))
                    self.assertEqual(list(ref.shape), list(expected.shape), problem["id"] + name)
                    scale = max(1.0, float(expected.abs().max()))
                    error = float((torch.from_numpy(ref) - expected).abs().max())
                    self.assertLess(error, 1e-10 * scale, "%s %s" % (problem["id"], name))


if __name__ == "__main__":
    if torch is None:
        print("skipped: %s (the test compares with PyTorch's float64 autograd)" % MISSING)
        sys.exit(77)
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
