#!/usr/bin/env python3
"""scripts/torch_baseline.py without a GPU or PyTorch: its input generator against golden values
of normbench's C++ generator (the same numbers as tests/cpu/inputs_golden_test.cpp), its config
parser against the configs and H100 reports, its stopping rule, and its report against
`normbench report` when NORMBENCH_BINARY names the CLI.

Run: python3 tests/python/test_torch_baseline_inputs.py (exits 77, "skipped", without NumPy),
or python3 -m unittest discover -s tests/python.
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import numpy as np
except ImportError:  # pragma: no cover
    np = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP_EXIT_CODE = 77


def load_script():
    sys.dont_write_bytecode = True  # no scripts/__pycache__ in the source tree
    spec = importlib.util.spec_from_file_location("torch_baseline", os.path.join(ROOT, "scripts", "torch_baseline.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tb = load_script() if np is not None else None
needs_numpy = unittest.skipIf(np is None, "numpy is not installed")

UNIFORM = {"dist": "uniform", "low": 0.0, "high": 1.0}
NORMAL = {"dist": "normal", "mean": 0.0, "std": 1.0}

# (distribution, seed, tensor, first element, bits of the next six float32 values), from the C++
# generator (tests/cpu/inputs_golden_test.cpp).
GOLDEN = [
    (UNIFORM, 42, "x", 0, [0x3f53d539, 0x3d716240, 0x3f1c2d78, 0x3efa3444, 0x3f58e9f1, 0x3ef5acba]),
    (UNIFORM, 43, "x", 0, [0x3e35fc84, 0x3f07cc74, 0x3f5350d7, 0x3f6b1a5f, 0x3f7e3029, 0x3f345e7f]),
    ({"dist": "uniform", "low": -2.0, "high": 3.0}, 42, "x", 0,
     [0x4008ca87, 0xbfda48a6, 0x3f8671ac, 0x3ee30554, 0x400f246d, 0x3ecc5fa2]),
    (NORMAL, 42, "weight", 0, [0x3dac9ad6, 0xbf4bc69b, 0xbf05110d, 0xbf3e30ad, 0x3f14cf5b, 0xbd65d6da]),
    (NORMAL, 42, "bias", 0, [0xbebf784d, 0xbf96fc64, 0x3eb213bf, 0x400634aa, 0x3f720fa1, 0x3edc06eb]),
    ({"dist": "normal", "mean": 1000.0, "std": 1.0}, 7, "x", 0,
     [0x4479d5de, 0x447a0e32, 0x44799f70, 0x4479ddc1, 0x447a165d, 0x44796c11]),
    ({"dist": "constant", "value": -7.3}, 42, "x", 0, [0xc0e9999a] * 6),
    (UNIFORM, 42, "x", 1900000000, [0x3f400392, 0x3e973bc0, 0x3ece15ec, 0x3ed289b2, 0x3f7a7c30, 0x3f28a708]),
    (NORMAL, 42, "x", 1900000000, [0x3f697933, 0xc0137033, 0x3f4f8c7f, 0xbe8239d7, 0xbe9be606, 0xbfc2b711]),
]


def bits(values):
    return values.astype(np.float32).view(np.uint32).astype(np.int64)


def checksum(values):
    """sum of bits(v[i]) * (2i + 1) mod 2^64, as the C++ test computes it."""
    b = values.view(np.uint32).astype(np.uint64)
    weights = 2 * np.arange(values.size, dtype=np.uint64) + np.uint64(1)
    return int(np.sum(b * weights, dtype=np.uint64))


@needs_numpy
class Generator(unittest.TestCase):
    def test_stream_keys(self):
        self.assertEqual(tb.tensor_stream_key(42, "x"), 0x2E76ECD0D54D0D0E)
        self.assertEqual(tb.tensor_stream_key(43, "x"), 0x1B1C62DA88CCF541)
        self.assertEqual(tb.tensor_stream_key(42, "weight"), 0x5A987EB9933B6C04)
        self.assertEqual(tb.tensor_stream_key(42, "bias"), 0x01F1975E2050C657)

    def test_first_values_match_the_cpp_generator(self):
        for dist, seed, name, first, expected in GOLDEN:
            got = bits(tb.generate_numpy(dist, seed, name, first, 6))
            diff = np.abs(got - np.array(expected, dtype=np.int64))
            # Uniform and constant: bit-identical. Normal: at most the last bit (libm).
            allowed = 1 if dist["dist"] == "normal" else 0
            self.assertLessEqual(int(diff.max()), allowed, "%s seed %d %s from %d: %s" % (
                dist, seed, name, first, [hex(v) for v in got]))

    def test_checksums_match_the_cpp_generator(self):
        self.assertEqual(checksum(tb.generate_numpy(UNIFORM, 42, "x", 0, 1 << 20)), 0xBFEC7388FFF8E82A)
        self.assertEqual(checksum(tb.generate_numpy({"dist": "uniform", "low": -2.0, "high": 3.0}, 42, "x", 0, 1 << 16)),
                         0x72E7076353305DF6)
        self.assertEqual(checksum(tb.generate_numpy(UNIFORM, 44, "x", (1 << 31) - 100, 1 << 16)), 0x3EC074032A99319C)
        normal = tb.generate_numpy(NORMAL, 42, "weight", 0, 1 << 16).astype(np.float64)
        self.assertAlmostEqual(float(normal.sum()), 119.72936167498347, delta=1e-9)
        self.assertAlmostEqual(float((normal * normal).sum()), 65568.600662836106, delta=1e-7)

    def test_values_do_not_depend_on_chunking(self):
        for dist in (UNIFORM, NORMAL, {"dist": "uniform", "low": 5.0, "high": 5.5}):
            whole = tb.generate_numpy(dist, 3, "x", 1000, 5000)
            pieces = np.concatenate([tb.generate_numpy(dist, 3, "x", 1000 + s, 1000) for s in range(0, 5000, 1000)])
            self.assertTrue(np.array_equal(whole.view(np.uint32), pieces.view(np.uint32)))

    def test_uniform_stays_below_high(self):
        # A span so narrow that rounding to float32 often lands on `high`.
        values = tb.generate_numpy({"dist": "uniform", "low": 1.0, "high": 1.0000001}, 1, "x", 0, 1 << 16)
        self.assertTrue(bool((values < np.float32(1.0000001)).all()))
        self.assertTrue(bool((values >= np.float32(1.0)).all()))


@needs_numpy
class Config(unittest.TestCase):
    def fixture(self, name):
        with open(os.path.join(ROOT, "tests", "fixtures", name)) as f:
            return json.load(f)

    def test_resolved_config_and_hash_match_the_h100_report(self):
        # normbench's reports hold its resolved config and its hash: the script must agree.
        parsed = tb.load_config(os.path.join(ROOT, "configs", "kernelbench.json"))
        expected = self.fixture("h100_kernelbench_v1.json")
        self.assertEqual(parsed["resolved"], expected["config"]["resolved"])
        self.assertEqual(parsed["hash"], expected["config"]["hash"])
        self.check_problems(parsed, expected)

    def test_edge_problems_match_the_h100_report(self):
        # configs/edge.json has grown since that report: compare the problems both have.
        parsed = tb.load_config(os.path.join(ROOT, "configs", "edge.json"))
        self.check_problems(parsed, self.fixture("h100_edge_v1.json"))

    def check_problems(self, parsed, report):
        by_id = {p["id"]: p for p in parsed["problems"]}
        compared = 0
        for q in report["problems"]:
            p = by_id.get(q["id"])
            if p is None:
                continue
            compared += 1
            self.assertEqual(p["resolved"], q["config"], q["id"])
            for key in ("min_bytes", "num_segments", "segment_size", "shape"):
                self.assertEqual(p[key], q[key], "%s %s" % (p["id"], key))
        self.assertGreaterEqual(compared, 3)

    def test_smoke_config_parses(self):
        parsed = tb.load_config(os.path.join(ROOT, "configs", "smoke.json"))
        self.assertEqual(len(parsed["problems"]), 8)
        self.assertEqual(parsed["problems"][6]["scale"], 1.5)

    def test_errors_name_the_path(self):
        def error(text):
            with self.assertRaises(tb.UsageError) as caught:
                tb.parse_config(text, "c.json")
            return str(caught.exception)

        self.assertIn("c.json: not valid JSON", error("{"))
        self.assertIn('c.json: /problems/0/id: ".." is not a valid id',
                      error('{"name": "n", "problems": [{"id": "..", "op": "layer_norm", "shape": [2], "normalized_shape": [2]}]}'))
        self.assertIn('c.json: /problems/0/op: unknown op "batch_norm"',
                      error('{"name": "n", "problems": [{"id": "a", "op": "batch_norm", "shape": [2]}]}'))
        self.assertIn("c.json: /problems/0/groups: 3 does not divide the channel count 8",
                      error('{"name": "n", "problems": [{"id": "a", "op": "group_norm", "shape": [2, 8], "groups": 3}]}'))
        self.assertIn("c.json: /defaults/timing/min_samples: 0 is out of range",
                      error('{"name": "n", "defaults": {"timing": {"min_samples": 0}}, "problems": []}'))
        self.assertIn("c.json: /problems/0/normalized_shape: [3] is not a suffix of shape [2, 4]",
                      error('{"name": "n", "problems": [{"id": "a", "op": "layer_norm", "shape": [2, 4], "normalized_shape": [3]}]}'))


@needs_numpy
class Timing(unittest.TestCase):
    def test_stop_rule_as_statistics_cpp(self):
        timing = {"min_samples": 3, "max_noise": 0.01, "max_time_s": 1.0}
        self.assertEqual(tb.stop_reason([1.0, 1.0], 5.0, timing), "keep_sampling")
        self.assertEqual(tb.stop_reason([1.0, 1.0, 1.001], 0.0, timing), "converged")
        self.assertEqual(tb.stop_reason([1.0, 2.0, 3.0], 0.5, timing), "keep_sampling")
        self.assertEqual(tb.stop_reason([1.0, 2.0, 3.0], 1.0, timing), "time_limit")
        # The same cases as statistics_test.cpp.
        tight = [0.996, 0.998, 0.999, 1.0, 1.0, 1.0, 1.0, 1.001, 1.002, 1.004]
        self.assertEqual(tb.stop_reason(tight, 0.0, dict(timing, min_samples=10, max_noise=0.005)), "converged")
        self.assertEqual(tb.stop_reason(tight, 0.0, dict(timing, min_samples=10, max_noise=0.003)), "keep_sampling")
        self.assertEqual(tb.median_interval(list(range(100, 0, -1))), (40, 61))

    def test_summary(self):
        s = tb.summarize([4.0, 1.0, 3.0, 2.0], "converged", 0.1)
        self.assertEqual((s["median_ms"], s["mean_ms"], s["min_ms"], s["max_ms"], s["samples"]), (2.5, 2.5, 1.0, 4.0, 4))
        self.assertAlmostEqual(s["stdev_ms"], 1.2909944487358056)
        self.assertAlmostEqual(s["relative_stdev"], 1.2909944487358056 / 2.5)


@needs_numpy
class Report(unittest.TestCase):
    """A report built by the script's own writer, from made-up results, read by normbench."""

    def make_report(self):
        config = tb.load_config(os.path.join(ROOT, "configs", "kernelbench.json"))
        p = config["problems"][0]
        timing = tb.summarize([1.0, 1.1, 0.9], "converged", 0.01)
        trial = {"trial": 0, "seed": 42, "passed": True, "checked": p["num_elements"], "violations": 0,
                 "nonfinite": 0, "max_abs_error": 1e-7, "max_rel_error": 1e-3, "rel_l2_error": 1e-8,
                 "inputs_unchanged": True, "first_mismatches": []}
        kernels = [dict(id="torch.eager", description="d", status="passed", reason="", trials=[trial], timing=timing),
                   dict(id="torch.compile", description="d", status="failed", reason="trial 0: 1 of 2 elements outside",
                        trials=[dict(trial, passed=False, violations=1)], timing=None)]
        results = [{"problem": p, "kernels": kernels, "skipped": False, "reason": ""}]

        class FakeTorch:
            __version__ = "0.0-test"

        class Args:
            problem, trials, seed, device, no_compile = ["A_layer_norm"], None, None, 0, False
            from_tensors, compile_mode, no_gpu_hold = None, "default", False

        device = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "sm_count": 132, "compute_capability": "9.0",
                  "memory_bytes": 85017493504, "l2_bytes": 52428800, "memory_clock_khz": None,
                  "memory_bus_width_bits": None, "driver_version": None, "runtime_version": 13000}
        copy = {"bytes_moved": 2 << 30, "gb_per_s": 3000.0, "timing": timing}
        return tb.build_report(config, Args, FakeTorch, device, copy, results, "", ["--problem", "A_layer_norm"])

    def test_report_fields(self):
        r = self.make_report()
        self.assertEqual(r["schema_version"], 1)
        self.assertEqual(r["exit_code"], 1)
        self.assertEqual(r["summary"], {"kernels": 2, "passed": 1, "failed": 1, "error": 0, "skipped": 0, "not_supported": 0})
        k = r["problems"][0]["kernels"][0]
        self.assertAlmostEqual(k["bandwidth"]["gb_per_s"], 570425344 / 1e6)  # min bytes / 1 ms
        self.assertIsNone(r["problems"][0]["kernels"][1]["timing"])
        json.dumps(r, allow_nan=False)

    def test_normbench_report_reads_it(self):
        binary = os.environ.get("NORMBENCH_BINARY", "")
        if not binary or not os.path.exists(binary):
            self.skipTest("NORMBENCH_BINARY is not set to the normbench CLI")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "torch.json")
            tb.write_atomically(path, json.dumps(self.make_report(), indent=2))
            self.assertEqual(os.listdir(tmp), ["torch.json"])
            fixture = os.path.join(ROOT, "tests", "fixtures", "h100_kernelbench_v1.json")
            out = subprocess.run([binary, "report", fixture, path, "--out", "-"], capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("| torch.eager | torch | passed |", out.stdout)
            self.assertIn("| torch.compile | torch | **FAILED** |", out.stdout)


if __name__ == "__main__":
    if np is None:
        print("skipped: numpy is not installed (python3 -m pip install numpy)")
        sys.exit(SKIP_EXIT_CODE)
    unittest.main()
