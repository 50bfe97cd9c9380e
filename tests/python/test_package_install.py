#!/usr/bin/env python3
"""python/ installs with pip (offline: no build isolation, no dependencies) and what it installs
is the bridge normbench's worker imports. Skipped (exit 77) without pip, setuptools or a wheel
builder."""

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

missing = [m for m in ("pip", "setuptools") if importlib.util.find_spec(m) is None]
if not missing and importlib.util.find_spec("wheel") is None:
    # setuptools 70.1 and later build wheels by themselves; earlier ones need `wheel`.
    folder = importlib.util.find_spec("setuptools").submodule_search_locations[0]
    if not os.path.exists(os.path.join(folder, "command", "bdist_wheel.py")):
        missing.append("wheel")
if missing:
    print("skipped: no %s for %s" % (" and ".join(missing), sys.executable))
    sys.exit(77)

with tempfile.TemporaryDirectory() as target, tempfile.TemporaryDirectory() as work:
    # From a copy: setuptools writes its build metadata next to the sources.
    source = os.path.join(work, "python")
    shutil.copytree(os.path.join(ROOT, "python"), source,
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation",
                           "--no-deps", "--no-index", "--target", target, source],
                          capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout + done.stderr)
        sys.exit("pip install ./python failed (exit %d)" % done.returncode)
    check = subprocess.run([sys.executable, "-c",
                            "import normbench_torch.bridge as b, normbench_torch as n; "
                            "print(n.__file__); print(b.plan, b.launch, b.finish)"],
                           cwd=target, env=dict(os.environ, PYTHONPATH=target),
                           capture_output=True, text=True)
    print(check.stdout + check.stderr)
    if check.returncode != 0 or not check.stdout.startswith(target):
        sys.exit("the installed package is not importable from where pip put it")
print("ok")
