#!/usr/bin/env python3
"""python -m normbench_torch refusing what it cannot use, each with a one-line message and exit
2, never a traceback: a Python without NumPy (run whether or not this one has it: NumPy is
hidden from the child), a --normbench program that is not normbench, and an --out that would
overwrite the config.

Run: python3 tests/python/test_normbench_torch_cli.py (needs NORMBENCH_BINARY for the plan; the
cases that import the package skip without NumPy).
"""

import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NORMBENCH = os.environ.get("NORMBENCH_BINARY")
SMOKE = os.path.join(ROOT, "configs", "smoke.json")
try:
    import numpy  # noqa: F401
    HAS_NUMPY = True
except ImportError:
    HAS_NUMPY = False
needs_numpy = unittest.skipIf(not HAS_NUMPY, "numpy is not installed")
needs_normbench = unittest.skipIf(not NORMBENCH, "NORMBENCH_BINARY is not set")


def normbench_torch(args, pythonpath=(), cwd=None):
    """Runs python -m normbench_torch ARGS; returns (exit code, stderr)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(list(pythonpath) + [os.path.join(ROOT, "python")]),
               PYTHONDONTWRITEBYTECODE="1")
    if NORMBENCH:
        env["NORMBENCH"] = NORMBENCH
    done = subprocess.run([sys.executable, "-m", "normbench_torch"] + args, capture_output=True,
                          text=True, env=env, cwd=cwd)
    return done.returncode, done.stderr


class Refusals(unittest.TestCase):
    def test_no_numpy_is_a_message_not_a_traceback(self):
        with tempfile.TemporaryDirectory() as shim:
            os.mkdir(os.path.join(shim, "numpy"))
            with open(os.path.join(shim, "numpy", "__init__.py"), "w") as f:
                f.write("raise ImportError('No module named numpy (hidden by the test)')\n")
            code, err = normbench_torch(["--config", SMOKE], pythonpath=[shim])
        self.assertEqual(code, 2, err)
        self.assertIn("normbench_torch: NumPy is not installed", err)
        self.assertNotIn("Traceback", err)

    @needs_numpy
    def test_a_normbench_that_is_not_normbench_is_named(self):
        with tempfile.TemporaryDirectory() as d:
            for name, text in (("echoes", "not json"), ("lists", "[1, 2]"), ("other", '{"kind": "x"}')):
                fake = os.path.join(d, name)
                with open(fake, "w") as f:
                    f.write("#!/bin/sh\necho '%s'\n" % text)
                os.chmod(fake, 0o755)
                code, err = normbench_torch(["--config", SMOKE, "--normbench", fake])
                self.assertEqual(code, 2, err)
                self.assertIn("%s plan --json: printed no plan this package reads" % fake, err)
                self.assertNotIn("Traceback", err)

    @needs_numpy
    @needs_normbench
    def test_out_that_is_the_config_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            config = os.path.join(d, "c.json")
            with open(SMOKE) as f:
                text = f.read()
            with open(config, "w") as f:
                f.write(text)
            os.mkdir(os.path.join(d, "sub"))
            for out in (config, os.path.join(d, "sub", "..", "c.json")):
                code, err = normbench_torch(["--config", config, "--out", out])
                self.assertEqual(code, 2, err)
                self.assertIn("--out %s: is the input file %s" % (out, config), err)
            with open(config) as f:
                self.assertEqual(f.read(), text)


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
