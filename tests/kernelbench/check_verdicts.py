#!/usr/bin/env python3
"""Python candidates in normbench's own harness on the GPU, each check a run whose every verdict
is known:

1. KernelBench-style submissions (`normbench run --kernelbench`) on configs/smoke.json: each
   ends as its docstring's first word says on the problems of its op (not_supported elsewhere),
   what it ran traced, and those built on PyTorch's kernels alone labelled so. Among them the
   cheats: a stream of its own, a replayed output.
2. Faults (faults.json): a submission that crashes the worker and one that hangs end `error`
   on every problem and the run finishes; a right one after them passes.
3. Formats (low_precision.json: bfloat16/float16, float32 weights, channels-last GroupNorm, no
   bias, rms_norm, add_rms_norm): torch.eager and torch.compile (--torch) pass everywhere with
   every output checked; rms_callables.py's functions (--python) end as their docstrings say,
   with reasons that name the tensor; the KernelBench GroupNorm passes on group_norm.
4. KernelBench's RMSNorm over dim 1 and InstanceNorm (configs/smoke_channels.json): the
   submissions pass on their problems and are not_supported on the others.

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
NOT_SUBMISSIONS = {"check_verdicts.py", "rms_callables.py", "crashes.py", "hangs.py"}

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
    "side_stream": ("layer_norm", {"failed"}),
    "replays_output": ("layer_norm", {"failed"}),
    "channel_rms_right": ("channel_rms_norm", {"passed"}),
    "instance_norm_right": ("instance_norm", {"passed"}),
}
# Whose passed results must say that only PyTorch's own kernels ran (their activity's label).
PYTORCH_ONLY = {"fallback_to_pytorch", "right_float64", "group_norm_right", "channel_rms_right",
                "instance_norm_right"}
MUST_FAIL_ON = {"wrong_unbiased": {"ln_short_rows", "ln_normal_inputs"}}
RMS_OPS = ("rms_norm", "add_rms_norm")

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.mkdtemp(), "submissions.json")
stem = os.path.splitext(out)[0]
# rms_callables is imported by module name: from this folder.
env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [HERE, os.environ.get("PYTHONPATH")])))
wrong = []


def run(args, report):
    command = [NORMBENCH, "run", "--out", report] + args
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    print(done.stdout[-6000:])
    if not os.path.exists(report):
        print(done.stderr[-4000:])
        wrong.append("%s wrote no report (exit %d)" % (" ".join(args[:2]), done.returncode))
        return None, done.returncode
    with open(report) as f:
        return json.load(f), done.returncode


def op_of(p):
    """The problem's op, with an InstanceNorm (a group per channel) told apart."""
    if p["op"] == "group_norm" and p["config"]["groups"] == p["config"]["shape"][1]:
        return "instance_norm"
    return p["op"]


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


# 1. KernelBench submissions on smoke.json and smoke_channels.json
files = sorted(f for f in glob.glob(os.path.join(HERE, "*.py")) if os.path.basename(f) not in NOT_SUBMISSIONS)
seen = set()
for config in ("smoke", "smoke_channels"):
    report, code = run(["--config", os.path.join(ROOT, "configs", config + ".json")] +
                       [a for f in files for a in ("--kernelbench", f)], stem + "-" + config + ".json")
    for p in (report or {}).get("problems", []):
        for k in p["kernels"]:
            if not k["id"].startswith("kernelbench."):
                continue
            name = k["id"].split(".", 1)[1]
            seen.add(name)
            op, statuses = EXPECTED[name]
            # A GroupNorm model with a group per channel is an InstanceNorm: it runs there too.
            if op is None or op_of(p) == op or (op == "group_norm" and op_of(p) == "instance_norm"):
                allowed = {"failed"} if p["id"] in MUST_FAIL_ON.get(name, ()) else statuses
                if name == "channel_rms_right" and p["config"].get("affine", True):
                    allowed = {"not_supported"}  # KernelBench's RMSNorm has no weight
            else:
                allowed = {"not_supported"}
            expect(name, p, k, allowed)
            if k["status"] == "passed":
                activity = k.get("activity") or {}
                if not activity.get("operations"):
                    wrong.append("%s on %s: no device operation traced" % (name, p["id"]))
                labelled = "only PyTorch's own kernels ran" in (activity.get("label") or "")
                if labelled != (name in PYTORCH_ONLY):
                    wrong.append("%s on %s: label %r" % (name, p["id"], activity.get("label")))
            if name == "side_stream" and op_of(p) == "layer_norm" and "another stream" not in (k["reason"] or ""):
                wrong.append("side_stream on %s: reason %r names no other stream" % (p["id"], k["reason"]))
    if report and code != 1:
        wrong.append("submissions on %s: exit %d, expected 1" % (config, code))
wrong += ["missing: %s" % m for m in sorted(set(EXPECTED) - seen)]

# 2. A crash and a hang: error on every problem, the run finishes, the right one passes.
report, code = run(["--config", os.path.join(HERE, "faults.json")] +
                   [a for f in ("crashes.py", "hangs.py", "right_float64.py")
                    for a in ("--kernelbench", os.path.join(HERE, f))], stem + "-faults.json")
for p in (report or {}).get("problems", []):
    for k in p["kernels"]:
        if k["id"] == "kernelbench.crashes":
            expect(k["id"], p, k, {"error"}, ["SIGSEGV"])
        elif k["id"] == "kernelbench.hangs":
            expect(k["id"], p, k, {"error"}, ["timed out"])
        elif k["id"] == "kernelbench.right_float64":
            expect(k["id"], p, k, {"passed"})
if report and code != 1:
    wrong.append("faults: exit %d, expected 1" % code)

# 3. Formats: PyTorch, the RMS callables and the KernelBench GroupNorm on low_precision.json
callables = ["right", "low_precision_sum", "s_not_stored"]
report, code = run(["--config", FORMATS, "--torch",
                    "--kernelbench", os.path.join(HERE, "group_norm_right.py")] +
                   [a for c in callables for a in ("--python", "rms_callables:" + c)],
                   stem + "-formats.json")
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
        if not name.startswith(("torch.", "kernelbench.", "python.")):
            continue  # normbench's own kernels: checked by the GPU tests
        if name == "torch.compile" and pytorch_refuses(p):
            expect(name, p, k, {"passed", "not_supported"})  # Inductor takes the mixed dtypes
        elif name in ("torch.eager", "torch.compile"):
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


for line in wrong:
    print("WRONG VERDICT: " + line)
print("%d wrong verdicts" % len(wrong))
sys.exit(1 if wrong else 0)
