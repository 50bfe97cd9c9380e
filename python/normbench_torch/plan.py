"""The problems of a config, as `normbench plan --config X --json` resolves them: normbench's
own config parser decides defaults, overrides, errors and the config hash, and this package
never parses configs itself."""

import json
import os
import shutil
import subprocess

from .dtypes import check_dtype
from .errors import UsageError

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def find_normbench(explicit=None):
    """The normbench program: --normbench, else $NORMBENCH, else `normbench` on PATH, else the
    repository's build/normbench."""
    for candidate in (explicit, os.environ.get("NORMBENCH"), shutil.which("normbench"),
                      os.path.join(REPO_ROOT, "build", "normbench")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise UsageError("cannot find the normbench program (give --normbench PATH, set NORMBENCH, "
                     "or build it: scripts/bootstrap.sh)")


def run_plan(normbench, config=None, problems=(), trials=None, seed=None):
    """The plan as a dict (kind "normbench-plan"); UsageError with normbench's own message
    when it refuses the config or the options."""
    command = [normbench, "plan", "--json"]
    if config:
        command += ["--config", config]
    for pid in problems:
        command += ["--problem", pid]
    if trials is not None:
        command += ["--trials", str(trials)]
    if seed is not None:
        command += ["--seed", str(seed)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, errors="replace")
    except OSError as e:
        raise UsageError("%s: cannot be run (%s); allowed: the normbench program (--normbench, "
                         "NORMBENCH)" % (normbench, e))
    if done.returncode != 0:
        message = done.stderr.strip().removeprefix("normbench: ") or "exit %d" % done.returncode
        raise UsageError(message)
    # Whatever --normbench names answers here: a program that is not normbench prints no plan.
    def not_a_plan(why):
        return UsageError("%s plan --json: printed no plan this package reads (%s); allowed: the "
                          "normbench program (--normbench, NORMBENCH)" % (normbench, why))
    try:
        plan = json.loads(done.stdout)
    except ValueError as e:
        raise not_a_plan("not JSON: %s" % e)
    if not isinstance(plan, dict):
        raise not_a_plan("a JSON %s" % type(plan).__name__)
    if plan.get("kind") != "normbench-plan" or plan.get("version") != 1:
        raise not_a_plan("kind %.60r, version %.60r" % (plan.get("kind"), plan.get("version")))
    return plan


def problem_from_plan(entry):
    """One planned problem as the rest of the package uses it: the resolved settings (op,
    shape, eps, tolerance, timing, ...), the geometry, the trials' seeds, and

      distributions  the resolved inputs: tensor name -> distribution
      inputs         the input tensors present, in order: x, residual, weight, bias
      outputs        ["y"], or ["y", "s"] for add_rms_norm
      dtype, param_dtype, layout, affine, has_bias, has_residual

    A normbench that predates dtypes and layouts prints no such geometry: its problems are
    float32, NCHW, with a bias whenever a weight, and these fields are derived the same way."""
    resolved, geometry = entry["resolved"], entry["geometry"]
    p = dict(resolved)
    p["distributions"] = dict(resolved.get("inputs", {}))
    p.update(geometry)  # geometry's "inputs" (the names) replaces resolved's (the distributions)
    p["seeds"] = list(entry["seeds"])
    p["trials"] = entry["trials"]
    p["resolved"] = resolved
    p.setdefault("normalized_shape", None)
    p.setdefault("groups", 0)
    p.setdefault("scale", 1.0)
    p.setdefault("dtype", "float32")
    p.setdefault("param_dtype", resolved.get("param_dtype", p["dtype"]))
    p.setdefault("layout", resolved.get("layout", "nchw"))
    p.setdefault("has_bias", bool(p["affine"]) and resolved.get("bias", True))
    p.setdefault("has_residual", p["op"] == "add_rms_norm")
    if not isinstance(p.get("inputs"), list):
        p["inputs"] = (["x"] + (["residual"] if p["has_residual"] else []) +
                       (["weight"] if p["affine"] else []) + (["bias"] if p["has_bias"] else []))
    p.setdefault("outputs", ["y", "s"] if p["has_residual"] else ["y"])
    try:
        check_dtype(p["dtype"])
        check_dtype(p["param_dtype"], "param_dtype")
    except ValueError as e:
        raise UsageError("problem %s: %s" % (p["id"], e))
    if p["layout"] not in ("nchw", "nhwc"):
        raise UsageError("problem %s: unknown layout %r; this normbench_torch knows nchw, nhwc"
                         % (p["id"], p["layout"]))
    missing = [n for n in p["inputs"] if n not in p["distributions"]]
    if missing:
        raise UsageError("problem %s: the plan gives no distribution for %s"
                         % (p["id"], ", ".join(missing)))
    return p


def load_plan(normbench, config=None, problems=(), trials=None, seed=None):
    """(config info {name, source, hash, resolved}, [problem])."""
    plan = run_plan(normbench, config, problems, trials, seed)
    return plan["config"], [problem_from_plan(e) for e in plan["problems"]]
