#!/usr/bin/env python3
"""python -m normbench_torch on the GPU, each check a run whose every verdict is known:

1. KernelBench adapter: every submission in this folder on configs/smoke.json; each must end as
   its docstring's first word says (on every problem of its op; others not_supported or error),
   what it ran traced, and those built on PyTorch's kernels alone labelled so.
2. Formats (low_precision.json: bfloat16/float16, float32 weights, channels-last GroupNorm, no
   bias, rms_norm, add_rms_norm): torch.eager and torch.compile pass everywhere with every
   output checked; rms_callables.py's right, low_precision_sum and s_not_stored end as their
   docstrings say, with reasons that name the tensor; the KernelBench GroupNorm passes on
   group_norm and is not_supported elsewhere.
3. Inputs bit for bit: `normbench run --save-tensors` on low_precision.json, its inputs against
   normbench_torch's (compare_saved_inputs.py), and torch.eager on them with --from-tensors.

Exits 77 (skipped) without PyTorch or a GPU.

    NORMBENCH=build/normbench python3 tests/kernelbench/check_verdicts.py [OUT.json]
"""

import glob
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NORMBENCH = os.environ.get("NORMBENCH", os.path.join(ROOT, "build", "normbench"))
FORMATS = os.path.join(HERE, "low_precision.json")
NOT_SUBMISSIONS = {"check_verdicts.py", "rms_callables.py", "compare_saved_inputs.py"}

try:
    import torch
    if not torch.cuda.is_available():
        raise ImportError("no GPU")
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)

# Step 1: the verdict on the problems of the op the submission computes, and on the others.
EXPECTED = {
    "right_float64": ("layer_norm", {"passed"}),
    "wrong_no_affine": ("layer_norm", {"failed"}),
    "raises": ("layer_norm", {"error"}),
    "wrong_shape": ("layer_norm", {"error"}),
    "does_not_import": (None, {"error"}),
    "group_norm_right": ("group_norm", {"passed"}),
    # n - 1 is visible at the tolerance on short rows only: required there, allowed elsewhere.
    "wrong_unbiased": ("layer_norm", {"failed", "passed"}),
    "fallback_to_pytorch": ("layer_norm", {"passed"}),
}
# Whose passed results must say that only PyTorch's own kernels ran (their activity's label).
PYTORCH_ONLY = {"fallback_to_pytorch", "right_float64", "group_norm_right"}
MUST_FAIL_ON = {"wrong_unbiased": {"ln_short_rows", "ln_normal_inputs"}}
RMS_OPS = ("rms_norm", "add_rms_norm")

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.mkdtemp(), "submissions.json")
out_formats = os.path.splitext(out)[0] + "-formats.json"
env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), HERE]), NORMBENCH=NORMBENCH)
wrong = []


def run(args, report):
    command = [sys.executable, "-m", "normbench_torch", "--out", report] + args
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    print(done.stdout[-6000:])
    if not os.path.exists(report):
        print(done.stderr[-4000:])
        wrong.append("%s wrote no report (exit %d)" % (" ".join(args[:2]), done.returncode))
        return None, done.returncode
    with open(report) as f:
        return json.load(f), done.returncode


def expect(name, p, k, allowed, reason_has=(), reason_lacks=()):
    if k["status"] not in allowed:
        wrong.append("%s on %s: %s (%s), expected %s" % (name, p["id"], k["status"], k["reason"],
                                                       " or ".join(sorted(allowed))))
    for text in reason_has:
        if text not in (k["reason"] or ""):
            wrong.append("%s on %s: reason %r lacks %r" % (name, p["id"], k["reason"], text))
    for text in reason_lacks:
        if text in (k["reason"] or ""):
            wrong.append("%s on %s: reason %r has %r" % (name, p["id"], k["reason"], text))
    if k["status"] != "passed" and k["timing"] is not None:
        wrong.append("%s on %s: timed although %s" % (name, p["id"], k["status"]))
    outputs = 2 if p["op"] == "add_rms_norm" else 1
    for t in (k["verification"] or {}).get("trials", []):
        if t["checked"] != outputs * math.prod(p["shape"]):
            wrong.append("%s on %s: trial %d checked %d elements" % (name, p["id"], t["trial"], t["checked"]))
        if any("tensor" not in m for m in t["first_mismatches"]):
            wrong.append("%s on %s: a mismatch without its tensor" % (name, p["id"]))


# 1. KernelBench submissions on smoke.json
files = sorted(f for f in glob.glob(os.path.join(HERE, "*.py")) if os.path.basename(f) not in NOT_SUBMISSIONS)
report, code = run(["--config", os.path.join(ROOT, "configs", "smoke.json")] +
                   [a for f in files for a in ("--kernelbench", f)], out)
seen = set()
for p in (report or {}).get("problems", []):
    for k in p["kernels"]:
        name = k["id"].split(".", 1)[1]
        seen.add(name)
        op, statuses = EXPECTED[name]
        if op is None or p["op"] == op:
            allowed = {"failed"} if p["id"] in MUST_FAIL_ON.get(name, ()) else statuses
        else:
            allowed = {"not_supported"}
        expect(name, p, k, allowed)
        if k["status"] == "passed":
            activity = k.get("activity") or {}
            if not activity.get("operations"):
                wrong.append("%s on %s: no device operation traced" % (name, p["id"]))
            labelled = "only PyTorch's own kernels ran" in activity.get("label", "")
            if labelled != (name in PYTORCH_ONLY):
                wrong.append("%s on %s: label %r" % (name, p["id"], activity.get("label")))
wrong += ["missing: %s" % m for m in sorted(set(EXPECTED) - seen)]
if report and code != 1:
    wrong.append("submissions: exit %d, expected 1" % code)

# 2. Formats: PyTorch, the RMS callables and the KernelBench GroupNorm on low_precision.json
callables = ["right", "low_precision_sum", "s_not_stored"]
report, code = run(["--config", FORMATS, "--torch",
                    "--kernelbench", os.path.join(HERE, "group_norm_right.py")] +
                   [a for c in callables for a in ("--callable", "rms_callables:" + c)], out_formats)
def pytorch_refuses(p):
    """PyTorch's group_norm takes no float32 weight with 16-bit data (2.11: "expected scalar type
    BFloat16 but found Float"): torch.* are not_supported there, a submission built on it errs."""
    config = p["config"]
    return p["op"] == "group_norm" and config.get("param_dtype", config["dtype"]) != config["dtype"]


for p in (report or {}).get("problems", []):
    rms, bf16 = p["op"] in RMS_OPS, p["config"]["dtype"] == "bfloat16"
    add = p["op"] == "add_rms_norm"
    for k in p["kernels"]:
        name = k["id"]
        if name in ("torch.eager", "torch.compile"):
            if pytorch_refuses(p):
                expect(name, p, k, {"not_supported"}, ["refuses float32 weights"])
            else:
                expect(name, p, k, {"passed"})
        elif name == "kernelbench.group_norm_right":
            if pytorch_refuses(p):
                expect(name, p, k, {"error"}, ["scalar type"])
            else:
                expect(name, p, k, {"passed"} if p["op"] == "group_norm" else {"not_supported"})
        elif not rms:
            expect(name, p, k, {"error"}, ["rms_norm and add_rms_norm only"])
        elif name.endswith(".right"):
            expect(name, p, k, {"passed"})
        elif name.endswith(".low_precision_sum"):
            # A wrong y only: the reason names y alone on add_rms_norm.
            expect(name, p, k, {"failed"} if bf16 else {"failed", "passed"},
                   ["y: "] if add and bf16 else [], ["s: "])
        elif name.endswith(".s_not_stored"):
            expect(name, p, k, {"failed"} if add else {"passed"},
                   ["trial 0: s: "] if add else [], ["y: "])
            for t in (k["verification"] or {}).get("trials", []):
                if add and {m["tensor"] for m in t["first_mismatches"]} != {"s"}:
                    wrong.append("%s on %s: mismatches of %s" % (name, p["id"], t["first_mismatches"]))
        else:
            wrong.append("unexpected kernel %s" % name)
if report and code != 1:
    wrong.append("formats: exit %d, expected 1" % code)
if report and len(report["problems"]) != 8:
    wrong.append("formats: %d problems, expected 8" % len(report["problems"]))

# 3. normbench's saved inputs, bit for bit, and PyTorch on them
with tempfile.TemporaryDirectory() as saved:
    done = subprocess.run([NORMBENCH, "run", "--config", FORMATS, "--no-timing", "--trials", "1",
                           "--save-tensors", saved, "--out", os.path.join(saved, "run.json")],
                          capture_output=True, text=True)
    if done.returncode not in (0, 1):
        wrong.append("normbench run --save-tensors: exit %d: %s" % (done.returncode, done.stderr[-2000:]))
    compared = subprocess.run([sys.executable, os.path.join(HERE, "compare_saved_inputs.py"),
                               "--normbench", NORMBENCH, "--config", FORMATS, saved],
                              env=env, capture_output=True, text=True)
    print(compared.stdout[-3000:] + compared.stderr[-2000:])
    if compared.returncode != 0:
        wrong.append("normbench's saved inputs differ from normbench_torch's (above)")
    report, code = run(["--config", FORMATS, "--trials", "1", "--no-compile", "--from-tensors", saved],
                       os.path.splitext(out)[0] + "-from-tensors.json")
    for p in (report or {}).get("problems", []):
        for k in p["kernels"]:
            expect(k["id"] + " (--from-tensors)", p, k,
                   {"not_supported"} if pytorch_refuses(p) else {"passed"})

for line in wrong:
    print("WRONG VERDICT: " + line)
print("%d wrong verdicts" % len(wrong))
sys.exit(1 if wrong else 0)
