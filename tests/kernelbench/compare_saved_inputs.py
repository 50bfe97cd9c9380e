#!/usr/bin/env python3
"""normbench's inputs against normbench_torch's, bit for bit: every DIR/<problem>/trial<k>/
<name>.npy that `normbench run --save-tensors DIR` wrote (float32, logical order, low-precision
values widened exactly) against the NumPy generator's values rounded to the input's dtype.
Uniform and constant inputs must be identical; a normal input may differ by one unit in the last
place of its dtype (libm's log and cos may differ in the last float32 bit). No GPU needed.

    python3 tests/kernelbench/compare_saved_inputs.py --normbench build/normbench \\
        --config tests/kernelbench/low_precision.json DIR
"""

import argparse
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from normbench_torch.dtypes import round_bfloat16_bits, round_float32  # noqa: E402
from normbench_torch.generator import generate_numpy  # noqa: E402
from normbench_torch.inputs import input_dtype  # noqa: E402
from normbench_torch.plan import load_plan  # noqa: E402


def dtype_bits(values, dtype):
    """The dtype's own bit patterns of exactly representable float32 values, as int64."""
    if dtype == "bfloat16":
        return round_bfloat16_bits(values).astype(np.int64)
    if dtype == "float16":
        return values.astype(np.float16).view(np.uint16).astype(np.int64)
    return values.view(np.uint32).astype(np.int64)


def compare(problems, folder, trials):
    """Lines describing each difference, and how many files were compared."""
    problems_found, compared = [], 0
    for p in problems:
        for trial, seed in enumerate(p["seeds"][:trials]):
            for name in p["inputs"]:
                path = os.path.join(folder, p["id"], "trial%d" % trial, name + ".npy")
                if not os.path.exists(path):
                    problems_found.append("%s: missing" % path)
                    continue
                saved = np.load(path).reshape(-1)
                dtype, dist = input_dtype(p, name), p["distributions"][name]
                ours = round_float32(generate_numpy(dist, seed, name, 0, saved.size), dtype)
                ulps = np.abs(dtype_bits(saved, dtype) - dtype_bits(ours, dtype))
                allowed = 1 if dist["dist"] == "normal" else 0
                compared += 1
                if saved.dtype != np.float32 or int(ulps.max()) > allowed:
                    worst = int(np.argmax(ulps))
                    problems_found.append("%s: %d elements differ, at most %d ulp (element %d: normbench %r, "
                                          "normbench_torch %r)" % (path, int((ulps > allowed).sum()), int(ulps.max()),
                                                                   worst, float(saved[worst]), float(ours[worst])))
    return problems_found, compared


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--normbench", default=os.environ.get("NORMBENCH", os.path.join(ROOT, "build", "normbench")))
    parser.add_argument("--config", required=True)
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("folder")
    args = parser.parse_args()
    _, problems = load_plan(args.normbench, args.config, trials=args.trials)
    differences, compared = compare(problems, args.folder, args.trials)
    for line in differences:
        print("DIFFERS: " + line)
    print("%d input files compared, %d differ" % (compared, len(differences)))
    return 0 if compared and not differences else 1


if __name__ == "__main__":
    sys.exit(main())
