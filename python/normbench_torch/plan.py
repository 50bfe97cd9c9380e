"""The problems of a config, as `normbench plan --config X --json` resolves them: normbench's
own config parser decides defaults, overrides, errors and the config hash, and this package
never parses configs itself."""

import json
import os
import shutil
import subprocess

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
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        message = done.stderr.strip().removeprefix("normbench: ") or "exit %d" % done.returncode
        raise UsageError(message)
    plan = json.loads(done.stdout)
    if plan.get("kind") != "normbench-plan" or plan.get("version") != 1:
        raise UsageError("%s plan: not a plan this package reads (kind %r, version %r)"
                         % (normbench, plan.get("kind"), plan.get("version")))
    return plan


def problem_from_plan(entry):
    """One planned problem as the rest of the package uses it: the resolved settings (op,
    shape, eps, tolerance, inputs, timing, ...), the geometry and the trials' seeds."""
    p = dict(entry["resolved"])
    p.update(entry["geometry"])
    p["seeds"] = list(entry["seeds"])
    p["trials"] = entry["trials"]
    p["resolved"] = entry["resolved"]
    p.setdefault("normalized_shape", None)
    p.setdefault("groups", 0)
    p.setdefault("scale", 1.0)
    return p


def load_plan(normbench, config=None, problems=(), trials=None, seed=None):
    """(config info {name, source, hash, resolved}, [problem])."""
    plan = run_plan(normbench, config, problems, trials, seed)
    return plan["config"], [problem_from_plan(e) for e in plan["problems"]]
