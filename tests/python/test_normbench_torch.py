#!/usr/bin/env python3
"""python/normbench_torch without a GPU or PyTorch: the package imports; its input generator
matches golden values of normbench's C++ generator (tests/cpu/inputs/inputs_golden_test.cpp);
its rounding to bfloat16 and float16 is round-to-nearest-even (ties, overflow, subnormals); its
float64 reference of every op (RMSNorm, add + RMSNorm from the stored sum, LayerNorm without
bias, GroupNorm) matches hand-computed values; verification aggregates over every output and
names each mismatch's tensor and logical coordinates (channels-last GroupNorm included); it
reads its problems from `normbench plan` (NORMBENCH_BINARY) and from a plan with the dtype and
layout geometry; the KernelBench adapter builds ModelNew from a problem by its parameter names;
the integrity rules as normbench's; and its report follows results/report.schema.json and is
read by `normbench report`.

Run: python3 tests/python/test_normbench_torch.py (exits 77, "skipped", without NumPy).
"""

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
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
SKIP_EXIT_CODE = 77
NORMBENCH = os.environ.get("NORMBENCH_BINARY")
needs_numpy = unittest.skipIf(np is None, "numpy is not installed")
needs_normbench = unittest.skipIf(not NORMBENCH, "NORMBENCH_BINARY is not set")

if np is not None:
    import normbench_torch.generator as gen

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
        self.assertEqual(gen.tensor_stream_key(42, "x"), 0x2E76ECD0D54D0D0E)
        self.assertEqual(gen.tensor_stream_key(43, "x"), 0x1B1C62DA88CCF541)
        self.assertEqual(gen.tensor_stream_key(42, "weight"), 0x5A987EB9933B6C04)
        self.assertEqual(gen.tensor_stream_key(42, "bias"), 0x01F1975E2050C657)

    def test_first_values_match_the_cpp_generator(self):
        for dist, seed, name, first, expected in GOLDEN:
            got = bits(gen.generate_numpy(dist, seed, name, first, 6))
            diff = np.abs(got - np.array(expected, dtype=np.int64))
            # Uniform and constant: bit-identical. Normal: at most the last bit (libm).
            allowed = 1 if dist["dist"] == "normal" else 0
            self.assertLessEqual(int(diff.max()), allowed, "%s seed %d %s from %d: %s" % (
                dist, seed, name, first, [hex(v) for v in got]))

    def test_checksums_match_the_cpp_generator(self):
        self.assertEqual(checksum(gen.generate_numpy(UNIFORM, 42, "x", 0, 1 << 20)), 0xBFEC7388FFF8E82A)
        self.assertEqual(checksum(gen.generate_numpy({"dist": "uniform", "low": -2.0, "high": 3.0}, 42, "x", 0, 1 << 16)),
                         0x72E7076353305DF6)
        self.assertEqual(checksum(gen.generate_numpy(UNIFORM, 44, "x", (1 << 31) - 100, 1 << 16)), 0x3EC074032A99319C)
        normal = gen.generate_numpy(NORMAL, 42, "weight", 0, 1 << 16).astype(np.float64)
        self.assertAlmostEqual(float(normal.sum()), 119.72936167498347, delta=1e-9)
        self.assertAlmostEqual(float((normal * normal).sum()), 65568.600662836106, delta=1e-7)

    def test_values_do_not_depend_on_chunking(self):
        for dist in (UNIFORM, NORMAL, {"dist": "uniform", "low": 5.0, "high": 5.5}):
            whole = gen.generate_numpy(dist, 3, "x", 1000, 5000)
            pieces = np.concatenate([gen.generate_numpy(dist, 3, "x", 1000 + s, 1000) for s in range(0, 5000, 1000)])
            self.assertTrue(np.array_equal(whole.view(np.uint32), pieces.view(np.uint32)))

    def test_outliers_replace_every_kth_element(self):
        for base in (NORMAL, UNIFORM):
            spiked = dict(base, outlier_every=7, outlier_value=100.25)
            for first in (0, 3, 7, 1000):
                plain = gen.generate_numpy(base, 5, "x", first, 50)
                spiked_values = gen.generate_numpy(spiked, 5, "x", first, 50)
                for j in range(50):
                    expected = np.float32(100.25) if (first + j) % 7 == 0 else plain[j]
                    self.assertEqual(spiked_values[j].view(np.uint32), np.float32(expected).view(np.uint32),
                                     "element %d of %s" % (first + j, spiked))

    def test_uniform_stays_below_high(self):
        # A span so narrow that rounding to float32 often lands on `high`.
        values = gen.generate_numpy({"dist": "uniform", "low": 1.0, "high": 1.0000001}, 1, "x", 0, 1 << 16)
        self.assertTrue(bool((values < np.float32(1.0000001)).all()))
        self.assertTrue(bool((values >= np.float32(1.0)).all()))



class Package(unittest.TestCase):
    def test_imports_without_torch(self):
        code = ("import sys; sys.modules['torch'] = None; sys.path.insert(0, %r); "
                "import normbench_torch, normbench_torch.cli, normbench_torch.candidates, "
                "normbench_torch.kernelbench, normbench_torch.runner, normbench_torch.report; "
                "print(normbench_torch.__version__)"
                % os.path.join(ROOT, "python"))
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)


@needs_normbench
class Plan(unittest.TestCase):
    def test_problems_come_from_normbench_plan(self):
        from normbench_torch.plan import load_plan
        config, problems = load_plan(NORMBENCH, os.path.join(ROOT, "configs", "smoke.json"),
                                     trials=3, seed=9)
        plan = json.loads(subprocess.run([NORMBENCH, "plan", "--json", "--config",
                                          os.path.join(ROOT, "configs", "smoke.json")],
                                         capture_output=True, text=True, check=True).stdout)
        self.assertEqual(config["hash"], plan["config"]["hash"])
        self.assertEqual([p["id"] for p in problems], [p["id"] for p in plan["problems"]])
        for p in problems:
            self.assertEqual(p["seeds"], [9, 10, 11])
            n = 1
            for d in p["shape"]:
                n *= d
            self.assertEqual(p["num_elements"], n)
            self.assertEqual(p["num_segments"] * p["segment_size"], n)
            self.assertIn(p["distributions"]["x"]["dist"], ("uniform", "normal", "constant"))
            self.assertIn("kernel_timeout_s" in p["timing"], (True, False))
            # Whatever this normbench prints of dtypes and layouts, smoke.json is float32 NCHW
            # with weight and bias.
            self.assertEqual((p["dtype"], p["param_dtype"], p["layout"]), ("float32", "float32", "nchw"))
            self.assertEqual((p["inputs"], p["outputs"]), (["x", "weight", "bias"], ["y"]))
            self.assertEqual(sorted(p["distributions"]), ["bias", "weight", "x"])
            self.assertTrue(p["has_bias"])
            self.assertFalse(p["has_residual"])

    def test_normbench_refusals_are_usage_errors(self):
        from normbench_torch.errors import UsageError
        from normbench_torch.plan import load_plan
        with self.assertRaises(UsageError) as e:
            load_plan(NORMBENCH, os.path.join(ROOT, "configs", "smoke.json"), problems=["nope"])
        self.assertIn("--problem nope: no such problem", str(e.exception))

    def test_cli_exits_2_on_bad_usage(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), NORMBENCH=NORMBENCH)
        for args, message in ((["--problem", "nope"], "no such problem"),
                              (["--callable", "no_colon"], "expected module:function"),
                              (["--kernelbench", "/nonexistent.py"], "no such file"),
                              (["--seed", "-1"], "unsigned 64-bit")):
            done = subprocess.run([sys.executable, "-m", "normbench_torch",
                                   "--config", os.path.join(ROOT, "configs", "smoke.json")] + args,
                                  capture_output=True, text=True, env=env)
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertIn(message, done.stderr)


UNIFORM_JSON = {"dist": "uniform", "low": 0.0, "high": 1.0}
NORMAL_JSON = {"dist": "normal", "mean": 0.0, "std": 1.0}
TIMING_JSON = {"warmup": 1, "min_samples": 5, "max_noise": 0.02, "max_time_s": 0.5, "flush_l2": True}


def plan_entry(resolved, geometry):
    """A `normbench plan --json` problem entry as normbench prints it for the 16-bit formats."""
    resolved = dict({"eps": 1e-5, "affine": True, "seed": 42, "trials": 2, "timing": TIMING_JSON},
                    **resolved)
    return {"id": resolved["id"], "resolved": resolved, "geometry": geometry, "trials": 2,
            "seeds": [42, 43], "kernels": []}


class PlanGeometry(unittest.TestCase):
    """Problems from a hand-written plan with the dtype and layout geometry (the normbench
    built here may not print it yet)."""

    ADD_RMS = plan_entry(
        {"id": "add_bf16", "op": "add_rms_norm", "shape": [4, 64], "normalized_shape": [64],
         "dtype": "bfloat16", "param_dtype": "float32",
         "tolerance": {"rtol": 2.0 ** -7, "atol": 2.0 ** -7},
         "inputs": {"x": UNIFORM_JSON, "residual": NORMAL_JSON, "weight": NORMAL_JSON}},
        {"num_elements": 256, "num_segments": 4, "segment_size": 64, "channels": 0, "spatial": 1,
         "param_size": 64, "param_shape": [64], "read_bytes": 2 * 2 * 256 + 4 * 64,
         "write_bytes": 2 * 2 * 256, "min_bytes": 4 * 2 * 256 + 4 * 64, "dtype": "bfloat16",
         "param_dtype": "float32", "layout": "nchw", "affine": True, "has_bias": False,
         "has_residual": True, "inputs": ["x", "residual", "weight"], "outputs": ["y", "s"]})
    GN_NHWC = plan_entry(
        {"id": "gn_nhwc", "op": "group_norm", "shape": [2, 8, 4, 4], "groups": 2, "dtype": "float16",
         "layout": "nhwc", "bias": False, "tolerance": {"rtol": 2.0 ** -10, "atol": 2.0 ** -10},
         "inputs": {"x": UNIFORM_JSON, "weight": NORMAL_JSON}},
        {"num_elements": 256, "num_segments": 4, "segment_size": 64, "channels": 8, "spatial": 16,
         "param_size": 8, "param_shape": [8], "read_bytes": 2 * 256 + 2 * 8, "write_bytes": 2 * 256,
         "min_bytes": 4 * 256 + 2 * 8, "dtype": "float16", "param_dtype": "float16",
         "layout": "nhwc", "affine": True, "has_bias": False, "has_residual": False,
         "inputs": ["x", "weight"], "outputs": ["y"]})

    def test_new_geometry(self):
        from normbench_torch.checks import gpu_bytes_needed
        from normbench_torch.plan import problem_from_plan
        p = problem_from_plan(self.ADD_RMS)
        self.assertEqual(p["inputs"], ["x", "residual", "weight"])
        self.assertEqual(p["outputs"], ["y", "s"])
        self.assertEqual(p["distributions"]["residual"], NORMAL_JSON)
        self.assertEqual((p["dtype"], p["param_dtype"], p["layout"]), ("bfloat16", "float32", "nchw"))
        self.assertFalse(p["has_bias"])
        self.assertTrue(p["has_residual"])
        self.assertEqual(p["seeds"], [42, 43])
        # x and residual, y and s kept and two samples of each, in bfloat16; the float32 weight;
        # the reference's float64 arrays over its one slab; the slack.
        self.assertEqual(gpu_bytes_needed(p), 2 * 256 * (2 + 3 * 2) + 4 * 64 + 8 * 8 * 256 + 256e6)
        g = problem_from_plan(self.GN_NHWC)
        self.assertEqual((g["dtype"], g["param_dtype"], g["layout"]), ("float16", "float16", "nhwc"))
        self.assertEqual((g["inputs"], g["outputs"], g["has_bias"]), (["x", "weight"], ["y"], False))
        self.assertEqual(gpu_bytes_needed(g), 2 * 256 * 4 + 2 * 8 + 8 * 8 * 256 + 256e6)

    def test_a_plan_without_the_new_geometry_reads_as_float32(self):
        from normbench_torch.plan import problem_from_plan
        old = plan_entry({"id": "ln", "op": "layer_norm", "shape": [2, 8], "normalized_shape": [8],
                          "dtype": "float32", "tolerance": {"rtol": 1e-5, "atol": 1e-5},
                          "inputs": {"x": UNIFORM_JSON, "weight": NORMAL_JSON, "bias": NORMAL_JSON}},
                         {"num_elements": 16, "num_segments": 2, "segment_size": 8, "channels": 0,
                          "spatial": 1, "param_size": 8, "param_shape": [8], "min_bytes": 192,
                          "read_bytes": 128, "write_bytes": 64})
        p = problem_from_plan(old)
        self.assertEqual((p["dtype"], p["param_dtype"], p["layout"]), ("float32", "float32", "nchw"))
        self.assertEqual((p["inputs"], p["outputs"]), (["x", "weight", "bias"], ["y"]))
        self.assertTrue(p["has_bias"])
        unaffine = plan_entry(dict(old["resolved"], affine=False, inputs={"x": UNIFORM_JSON}), old["geometry"])
        self.assertEqual(problem_from_plan(unaffine)["inputs"], ["x"])

    def test_unknown_dtype_or_missing_distribution_is_a_usage_error(self):
        from normbench_torch.errors import UsageError
        from normbench_torch.plan import problem_from_plan
        entry = json.loads(json.dumps(self.ADD_RMS))
        entry["geometry"]["dtype"] = "float8"
        with self.assertRaises(UsageError) as e:
            problem_from_plan(entry)
        self.assertIn("unknown dtype 'float8'", str(e.exception))
        entry = json.loads(json.dumps(self.ADD_RMS))
        del entry["resolved"]["inputs"]["residual"]
        with self.assertRaises(UsageError) as e:
            problem_from_plan(entry)
        self.assertIn("no distribution for residual", str(e.exception))

    def test_a_callable_sees_the_formats(self):
        from normbench_torch.candidates import callable_problem
        from normbench_torch.plan import problem_from_plan
        problem = callable_problem(problem_from_plan(self.GN_NHWC))
        self.assertEqual({k: problem[k] for k in ("op", "dtype", "param_dtype", "layout", "has_bias", "affine")},
                         {"op": "group_norm", "dtype": "float16", "param_dtype": "float16",
                          "layout": "nhwc", "has_bias": False, "affine": True})
        self.assertEqual((problem["shape"], problem["groups"]), ([2, 8, 4, 4], 2))


class KernelBenchAdapter(unittest.TestCase):
    LN = {"op": "layer_norm", "normalized_shape": [64, 8], "groups": 0, "channels": 0,
          "eps": 1e-5, "affine": True}
    GN = {"op": "group_norm", "normalized_shape": None, "groups": 8, "channels": 64,
          "eps": 1e-5, "affine": True}

    def test_builds_by_parameter_name(self):
        from normbench_torch.kernelbench import kernelbench_arguments
        self.assertEqual(kernelbench_arguments([("normalized_shape", False)], self.LN),
                         {"normalized_shape": (64, 8)})
        self.assertEqual(kernelbench_arguments([("num_features", False), ("num_groups", False),
                                                ("eps", True)], self.GN),
                         {"num_features": 64, "num_groups": 8, "eps": 1e-5})

    def test_another_op_or_an_unknown_parameter_is_not_supported(self):
        from normbench_torch.candidates import NotSupported
        from normbench_torch.kernelbench import kernelbench_arguments
        with self.assertRaises(NotSupported) as e:
            kernelbench_arguments([("normalized_shape", False)], self.GN)
        self.assertIn("ModelNew computes layer_norm, the problem is group_norm", str(e.exception))
        with self.assertRaises(NotSupported):
            kernelbench_arguments([("dim", False)], self.LN)
        with self.assertRaises(NotSupported) as e:
            kernelbench_arguments([("normalized_shape", False), ("dropout", False)], self.LN)
        self.assertIn("'dropout' has no value", str(e.exception))
        self.assertEqual(kernelbench_arguments([("normalized_shape", False), ("dropout", True)],
                                               self.LN), {"normalized_shape": (64, 8)})

    def test_rms_ops_are_not_supported(self):
        from normbench_torch.candidates import NotSupported
        from normbench_torch.kernelbench import kernelbench_arguments
        for op in ("rms_norm", "add_rms_norm"):
            with self.assertRaises(NotSupported) as e:
                kernelbench_arguments([("normalized_shape", False)], dict(self.LN, op=op))
            self.assertIn("LayerNorm and GroupNorm models only", str(e.exception))
            self.assertIn("the problem is %s: use --callable" % op, str(e.exception))


class FakeDevice:
    """torch.cuda.synchronize costing `overhead` seconds, plus `pending` seconds of work left
    on another stream on its first call."""

    def __init__(self, overhead, pending):
        import types
        self.overhead, self.pending = overhead, pending
        self.cuda = types.SimpleNamespace(synchronize=self.synchronize)

    def synchronize(self):
        import time
        time.sleep(self.overhead + self.pending)
        self.pending = 0.0


class Integrity(unittest.TestCase):
    def test_escaped_work_is_measured_beyond_the_cost_of_a_synchronize(self):
        from normbench_torch.gpu import device_busy_after_us
        # 60 us of synchronize cost on an idle device is not escaped work; 2 ms left running is.
        idle = min(device_busy_after_us(FakeDevice(60e-6, 0.0)) for _ in range(5))
        self.assertLess(idle, 50.0)
        busy = device_busy_after_us(FakeDevice(60e-6, 2e-3))
        self.assertGreater(busy, 1500.0)

    def test_as_normbench(self):
        from normbench_torch.checks import copy_floor_failure, escaped_failure
        self.assertIsNone(escaped_failure(50.0))
        self.assertIn("outside the stream it was given", escaped_failure(812.0))
        self.assertIn("outside the stream it was given", escaped_failure(812.0, 0.01))
        self.assertIsNone(escaped_failure(67.0, 8.2))  # PyTorch eager on A: an 8 ms call
        p = {"read_bytes": 302000000, "write_bytes": 268000000, "timing": {"flush_l2": True}}
        copy = {"gb_per_s": 3000.0}
        self.assertIsNone(copy_floor_failure(0.3, p, copy, 50000000))
        self.assertIn("faster than moving", copy_floor_failure(0.0012, p, copy, 50000000))
        self.assertIsNone(copy_floor_failure(0.0012, p, None, 50000000))
        # bfloat16 add_rms_norm: x and residual read, y and s written, 2 bytes each
        p = {"read_bytes": 4 * 2 ** 28, "write_bytes": 4 * 2 ** 28, "timing": {"flush_l2": True}}
        self.assertIn("faster than moving", copy_floor_failure(0.6, p, copy, 50000000))
        self.assertIsNone(copy_floor_failure(0.7, p, copy, 50000000))


@needs_numpy
class Activity(unittest.TestCase):
    """What one call ran, from profiler event names as PyTorch 2.11 gives them on the H100."""

    LAYER_NORM = ("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>"
                  "(int, float, float const*, float const*, float const*, float*, float*, float*)")

    def test_names_are_shortened_as_normbench_shortens_them(self):
        from normbench_torch.activity import operation, short_name
        self.assertEqual(short_name(self.LAYER_NORM), "vectorized_layer_norm_kernel<float, float>")
        self.assertEqual(short_name("triton_per_fused_native_layer_norm_0"),
                         "triton_per_fused_native_layer_norm_0")
        self.assertEqual(operation("Memcpy DtoD (Device -> Device)", 1.5)["name"], "memcpy DtoD")
        self.assertEqual(operation("Memset (Device)", 0.8)["kind"], "memset")

    def test_a_submission_that_ran_only_pytorchs_kernels_is_labelled(self):
        from normbench_torch.activity import PYTORCH_ONLY, activity, operation
        fallback = [operation(self.LAYER_NORM, 12.0)]
        self.assertEqual(activity(fallback, "kernelbench.fallback")["label"], PYTORCH_ONLY)
        # PyTorch's own candidates are PyTorch: no label.
        self.assertNotIn("label", activity(fallback, "torch.eager"))
        # A kernel of its own (load_inline, Triton) among PyTorch's: no label.
        own = fallback + [operation("layer_norm_kernel(float const*, float*, int)", 8.0)]
        self.assertNotIn("label", activity(own, "kernelbench.mine"))
        self.assertNotIn("label", activity(
            [operation("triton_per_fused_native_layer_norm_0", 9.0)], "kernelbench.triton"))
        self.assertNotIn("full_name", activity(fallback, "x")["operations"][0])


class Report(unittest.TestCase):
    """A report built by the package's own writer, from made-up results, read by normbench."""

    @staticmethod
    def fallback_activity():
        from normbench_torch.activity import activity, operation
        return activity([operation(Activity.LAYER_NORM, 12.0)], "kernelbench.fallback")

    def make_report(self):
        from normbench_torch.report import build_report
        from normbench_torch.timing import summarize
        p = {"id": "A_layer_norm", "op": "layer_norm", "shape": [16, 64, 256, 256],
             "num_segments": 16, "segment_size": 4194304, "min_bytes": 570425344,
             "num_elements": 67108864, "resolved": {"id": "A_layer_norm"}}
        timing = summarize([1.0, 1.1, 0.9], "converged", 0.01)
        trial = {"trial": 0, "seed": 42, "passed": True, "checked": p["num_elements"], "violations": 0,
                 "nonfinite": 0, "max_abs_error": 1e-7, "max_rel_error": 1e-3, "rel_l2_error": 1e-8,
                 "inputs_unchanged": True, "first_mismatches": []}
        mismatches = [{"tensor": "y", "index": 5, "coords": [0, 0, 0, 5], "value": 2.5, "expected": 0.5},
                      {"tensor": "y", "index": 6, "coords": [0, 0, 0, 6], "value": None,
                       "expected": 0.25, "value_text": "nan"}]
        checks = {"outputs_checked": 3, "method": "bitwise", "escaped_work_us": 2.0}
        kernels = [dict(id="torch.eager", description="d", origin=None, status="passed", reason="",
                        trials=[trial], timing=timing, checks=checks, deterministic=True),
                   dict(id="kernelbench.mine", description="d", origin="mine.py", status="failed",
                        reason="trial 0: 1 of 2 elements outside", deterministic=None,
                        trials=[dict(trial, passed=False, violations=2, nonfinite=1,
                                     first_mismatches=mismatches)], timing=timing, checks=None),
                   dict(id="callable.m.f", description="d", origin="m:f", status="error",
                        reason="cannot import m:f: ModuleNotFoundError: No module named 'm'",
                        deterministic=None, trials=[], timing=None, checks=None),
                   dict(id="kernelbench.fallback", description="d", origin="fallback.py",
                        status="passed", reason="", trials=[trial], timing=timing, checks=checks,
                        deterministic=True, activity=self.fallback_activity())]
        results = [{"problem": p, "kernels": kernels, "skipped": False, "reason": ""}]
        device = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "sm_count": 132, "compute_capability": "9.0",
                  "memory_bytes": 85017493504, "l2_bytes": 52428800, "memory_clock_khz": None,
                  "memory_bus_width_bits": None, "driver_version": None, "runtime_version": 13000}
        config = {"name": "kernelbench", "source": "configs/kernelbench.json", "hash": "c7481890bd78f27f",
                  "resolved": {"name": "kernelbench"}}
        settings = {"problems": [], "kernels": ["torch.eager"], "trials_override": None,
                    "seed_override": None, "timing": True, "device": 0}
        copy = {"bytes_moved": 2 << 30, "gb_per_s": 3000.0, "timing": timing}
        return build_report(config, settings, "2 (torch test)", device, copy, results, "", ["--x"])

    def test_report_fields(self):
        r = self.make_report()
        self.assertEqual(r["schema_version"], 2)
        self.assertEqual(r["exit_code"], 1)
        kernels = r["problems"][0]["kernels"]
        self.assertIsNone(kernels[1]["timing"])  # a candidate that failed has no time
        self.assertEqual(kernels[0]["timing"]["checks"]["method"], "bitwise")
        self.assertEqual(r["summary"]["error"], 1)
        mismatch = kernels[1]["verification"]["trials"][0]["first_mismatches"][1]
        self.assertEqual((mismatch["tensor"], mismatch["value_text"]), ("y", "nan"))

    def test_follows_the_report_schema(self):
        try:
            import jsonschema
        except ImportError:
            self.skipTest("jsonschema is not installed")
        with open(os.path.join(ROOT, "results", "report.schema.json")) as f:
            schema = json.load(f)
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(self.make_report()))
        self.assertEqual(errors, [])

    @needs_normbench
    def test_normbench_report_reads_it(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "torch.json")
            with open(path, "w") as f:
                json.dump(self.make_report(), f)
            done = subprocess.run([NORMBENCH, "report", path, "--out", "-"], capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn("kernelbench.mine", done.stdout)
            # What the fallback ran, labelled, in the column and a line of its own.
            self.assertIn("only PyTorch's own kernels ran: none of the submission's", done.stdout)
            self.assertIn("kernelbench.fallback ran 1 kernel: vectorized_layer_norm_kernel<float, float>",
                          done.stdout.replace("\\", ""))


if __name__ == "__main__":
    if np is None:
        print("skipped: NumPy is not installed")
        sys.exit(SKIP_EXIT_CODE)
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
