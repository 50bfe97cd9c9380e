"""The report, in normbench's schema (app/results/report_writer.cpp, schema_version 2;
results/report.schema.json): `normbench report` and `normbench compare` read it as they read
normbench's own."""

import datetime
import os
import subprocess
import tempfile

from .errors import EXIT_FAILED, EXIT_OK, EXIT_RUNTIME
from .plan import REPO_ROOT
from .verify import worst_accuracy


def kernel_json(k, p, copy):
    verification = None
    if k["trials"]:
        verification = {
            "passed": all(t["passed"] and t["inputs_unchanged"] for t in k["trials"]),
            "violations": sum(t["violations"] for t in k["trials"]),
            "max_abs_error": max(t["max_abs_error"] or 0.0 for t in k["trials"]),
            "max_rel_error": max(t["max_rel_error"] or 0.0 for t in k["trials"]),
            "accuracy": worst_accuracy(k["trials"]),
            "trials": k["trials"]}
    bandwidth = None
    if k["timing"]:
        gb = p["min_bytes"] / (k["timing"]["median_ms"] * 1e-3) / 1e9
        percent = 100.0 * gb / copy["gb_per_s"] if copy else None
        bandwidth = {"gb_per_s": gb, "percent_of_copy": percent,
                     "suspicious": (percent or 0.0) > 100.0}
    timing = None
    if k["status"] == "passed" and k["timing"]:
        timing = dict(k["timing"], checks=k["checks"])
    else:
        bandwidth = None
    return {"id": k["id"], "description": k["description"], "is_baseline": False,
            "origin": k["origin"], "status": k["status"], "reason": k["reason"] or None,
            "deterministic": k["deterministic"], "verification": verification,
            "timing": timing, "bandwidth": bandwidth, "speedup": None,
            "activity": k.get("activity")}


def problem_json(r, copy):
    p = r["problem"]
    return {"id": p["id"], "op": p["op"], "shape": p["shape"], "num_segments": p["num_segments"],
            "segment_size": p["segment_size"], "min_bytes": p["min_bytes"], "config": p["resolved"],
            "status": "skipped" if r["skipped"] else "ran", "reason": r["reason"] or None,
            "kernels": [kernel_json(k, p, copy) for k in r["kernels"]]}


def git_revision():
    """As normbench's build records it: NORMBENCH_GIT_REVISION where set (a copied tree may
    carry a stale .git), else git's HEAD with "-dirty" for uncommitted changes."""
    if os.environ.get("NORMBENCH_GIT_REVISION"):
        return os.environ["NORMBENCH_GIT_REVISION"]
    try:
        head = subprocess.run(["git", "-C", REPO_ROOT, "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        if not head:
            return None
        changes = subprocess.run(["git", "-C", REPO_ROOT, "status", "--porcelain",
                                  "--untracked-files=no"],
                                 capture_output=True, text=True, timeout=10).stdout.strip()
        return head + ("-dirty" if changes else "")
    except (OSError, subprocess.SubprocessError):
        return None


def exit_code_for(results, aborted):
    if aborted:
        return EXIT_RUNTIME
    bad = any(k["status"] in ("failed", "error") for r in results for k in r["kernels"])
    return EXIT_FAILED if bad else EXIT_OK


def build_report(config, settings, tool_version, device, copy, results, aborted, argv):
    counts = {"kernels": 0, "passed": 0, "failed": 0, "error": 0, "skipped": 0,
              "not_supported": 0, "not_run": 0}
    for r in results:
        for k in r["kernels"]:
            counts["kernels"] += 1
            counts[k["status"]] += 1
    return {
        "schema_version": 2,
        "tool": {"name": "normbench_torch", "version": tool_version, "git_revision": git_revision()},
        "created_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command_line": ["python", "-m", "normbench_torch"] + list(argv),
        "config": {"name": config["name"], "source": config["source"], "hash": config["hash"],
                   "resolved": config["resolved"]},
        "device": device,
        "settings": settings,
        "copy_bandwidth": copy,
        "problems": [problem_json(r, copy) for r in results],
        "summary": counts,
        "aborted": aborted or None,
        "exit_code": exit_code_for(results, aborted),
    }


def write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise


def print_table(results, copy):
    print("%-28s %-32s %-13s %12s %10s %9s" % ("problem", "kernel", "status", "median ms", "GB/s", "% copy"))
    for r in results:
        for k in r["kernels"]:
            t = k["timing"]
            gb = r["problem"]["min_bytes"] / (t["median_ms"] * 1e6) if t else None
            percent = 100.0 * gb / copy["gb_per_s"] if gb and copy else None
            line = "%-28s %-32s %-13s %12s %10s %9s" % (
                r["problem"]["id"], k["id"], k["status"], "%.4f" % t["median_ms"] if t else "-",
                "%.1f" % gb if gb else "-", "%.1f" % percent if percent else "-")
            print(line + ("  %s" % k["reason"] if k["reason"] else ""))
