#!/usr/bin/env python3
"""The KernelBench adapter on the GPU: every submission in this folder on configs/smoke.json in
one run of `python -m normbench_torch`, and each must end as its docstring's first word says
(on every problem of its op; others not_supported or error as noted). Exits 77 (skipped)
without PyTorch or a GPU.

    NORMBENCH=build/normbench python3 tests/kernelbench/check_verdicts.py [OUT.json]
"""

import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

try:
    import torch
    if not torch.cuda.is_available():
        raise ImportError("no GPU")
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)

# The verdict on the problems of the op the submission computes, and on the others.
EXPECTED = {
    "right_float64": ("layer_norm", {"passed"}),
    "wrong_no_affine": ("layer_norm", {"failed"}),
    "raises": ("layer_norm", {"error"}),
    "wrong_shape": ("layer_norm", {"error"}),
    "does_not_import": (None, {"error"}),
    "group_norm_right": ("group_norm", {"passed"}),
    # n - 1 is visible at the tolerance on short rows only: required there, allowed elsewhere.
    "wrong_unbiased": ("layer_norm", {"failed", "passed"}),
}
MUST_FAIL_ON = {"wrong_unbiased": {"ln_short_rows", "ln_normal_inputs"}}

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.mkdtemp(), "submissions.json")
files = sorted(glob.glob(os.path.join(HERE, "*.py")))
files = [f for f in files if os.path.basename(f) != "check_verdicts.py"]
command = [sys.executable, "-m", "normbench_torch", "--config", os.path.join(ROOT, "configs", "smoke.json"),
           "--out", out] + [a for f in files for a in ("--kernelbench", f)]
env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
done = subprocess.run(command, env=env, capture_output=True, text=True)
print(done.stdout[-6000:])
if not os.path.exists(out):
    print(done.stderr[-4000:])
    sys.exit(1)
report = json.load(open(out))
problems_wrong = []
seen = set()
for p in report["problems"]:
    for k in p["kernels"]:
        name = k["id"].split(".", 1)[1]
        seen.add(name)
        op, statuses = EXPECTED[name]
        if op is None or p["op"] == op:
            allowed = {"failed"} if p["id"] in MUST_FAIL_ON.get(name, ()) else statuses
        else:
            allowed = {"not_supported"}
        if k["status"] not in allowed:
            problems_wrong.append("%s on %s: %s (%s), expected %s" % (
                name, p["id"], k["status"], k["reason"], " or ".join(sorted(allowed))))
        if k["status"] != "passed" and k["timing"] is not None:
            problems_wrong.append("%s on %s: timed although %s" % (name, p["id"], k["status"]))
missing = set(EXPECTED) - seen
for line in problems_wrong + ["missing: %s" % m for m in sorted(missing)]:
    print("WRONG VERDICT: " + line)
print("%d wrong verdicts; exit code %d (1 expected)" % (len(problems_wrong) + len(missing), done.returncode))
sys.exit(0 if not problems_wrong and not missing and done.returncode == 1 else 1)
