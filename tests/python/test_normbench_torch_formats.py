#!/usr/bin/env python3
"""python/normbench_torch's element types, reference and verification, on NumPy (no GPU, no
PyTorch): rounding float32 to bfloat16 and float16 is round-to-nearest-even (ties, overflow,
subnormals, as torch's .to()); the float64 reference of rms_norm, add_rms_norm (y from the sum
as PyTorch stores it, s exact), layer_norm without bias and group_norm matches hand-computed
values; verification checks every output, aggregates a trial over them, names each mismatch's
tensor and logical coordinates (a channels-last GroupNorm's too) and words the reason as
normbench does.

Run: python3 tests/python/test_normbench_torch_formats.py (exits 77, "skipped", without NumPy).
"""

import math
import os
import sys
import unittest

try:
    import numpy as np
except ImportError:  # pragma: no cover
    np = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.dont_write_bytecode = True
SKIP_EXIT_CODE = 77
if np is not None:
    from normbench_torch.dtypes import round_float32
TOLERANCE = {"float32": 1e-5, "bfloat16": 2.0 ** -7, "float16": 2.0 ** -10}
EPS = 1e-5


def problem(op, shape, normalized_shape=None, groups=0, dtype="float32", affine=True,
            has_bias=True, layout="nchw"):
    """A problem as problem_from_plan gives it, the geometry computed as normbench's."""
    n = math.prod(shape)
    rms = op in ("rms_norm", "add_rms_norm")
    has_bias = affine and has_bias and not rms
    if op == "group_norm":
        channels, spatial = shape[1], n // (shape[0] * shape[1])
        segments, param_shape = shape[0] * groups, [channels]
    else:
        channels, spatial = 0, 1
        segments, param_shape = n // math.prod(normalized_shape), list(normalized_shape)
    tol = TOLERANCE[dtype]
    return {"id": "p", "op": op, "shape": list(shape), "normalized_shape": normalized_shape,
            "groups": groups, "eps": EPS, "scale": 1.0, "dtype": dtype, "param_dtype": dtype,
            "layout": layout, "affine": affine, "has_bias": has_bias,
            "has_residual": op == "add_rms_norm", "num_elements": n, "num_segments": segments,
            "segment_size": n // segments, "channels": channels, "spatial": spatial,
            "param_size": math.prod(param_shape), "param_shape": param_shape,
            "outputs": ["y", "s"] if op == "add_rms_norm" else ["y"],
            "tolerance": {"rtol": tol, "atol": tol}}


def f32(values):
    return np.array(values, dtype=np.float32)


def from_bits(bits):
    return np.array(bits, dtype=np.uint32).view(np.float32)


@unittest.skipIf(np is None, "numpy is not installed")
class Rounding(unittest.TestCase):
    def test_bfloat16_round_to_nearest_even(self):
        from normbench_torch.dtypes import round_bfloat16_bits
        cases = [  # float32 bits -> bfloat16 bits
            (0x3F800000, 0x3F80),  # 1
            (0x3F808000, 0x3F80),  # 1 + 2^-8: the tie between 1 and 1 + 2^-7 goes to even 1
            (0x3F818000, 0x3F82),  # 1 + 3 * 2^-8: the tie goes up to even 1 + 2^-6
            (0x3F808001, 0x3F81),  # just above the tie: up
            (0x3F807FFF, 0x3F80),  # just below: down
            (0xBF808000, 0xBF80),  # -(1 + 2^-8): ties to even, negative
            (0x80000000, 0x8000),  # -0 stays -0
            (0x7F7FFFFF, 0x7F80),  # the largest float32 is beyond bfloat16's last midpoint: inf
            (0x7F7F7FFF, 0x7F7F),  # below it: the largest bfloat16
            (0x00000001, 0x0000),  # the smallest float32 subnormal: 0
            (0x00008000, 0x0000),  # subnormal tie between 0 and the smallest: even 0
            (0x00018000, 0x0002),  # subnormal tie between 1 and 2 ulps: even 2
            (0x00010001, 0x0001),  # a subnormal just above 1 ulp: 1 ulp
            (0x7F800000, 0x7F80),  # inf
            (0x7FC00001, 0x7FC0),  # a NaN: the canonical NaN
        ]
        got = round_bfloat16_bits(from_bits([c[0] for c in cases]))
        self.assertEqual([hex(int(b)) for b in got], [hex(c[1]) for c in cases])

    def test_float16_round_to_nearest_even(self):
        from normbench_torch.dtypes import round_float32
        cases = [
            (1 + 2.0 ** -11, 1.0),  # tie between 1 and 1 + 2^-10: even 1
            (1 + 3 * 2.0 ** -11, 1 + 2.0 ** -9),  # tie: even 1 + 2^-9
            (1 + 2.0 ** -11 + 2.0 ** -20, 1 + 2.0 ** -10),  # above the tie: up
            (65504.0, 65504.0),  # the largest float16
            (65519.0, 65504.0),  # below the midpoint to 65536: down
            (65520.0, math.inf),  # the midpoint: even, which is the overflow
            (2.0 ** -25, 0.0),  # tie between 0 and the smallest subnormal 2^-24: even 0
            (3 * 2.0 ** -25, 2.0 ** -23),  # tie between 1 and 2 subnormal ulps: even 2
            (2.0 ** -25 + 2.0 ** -40, 2.0 ** -24),  # above the tie: the smallest subnormal
            (-(1 + 2.0 ** -11), -1.0),
        ]
        got = round_float32(f32([c[0] for c in cases]), "float16")
        self.assertEqual(got.tolist(), [c[1] for c in cases])

    def test_rounded_values_are_float32_arrays_and_float32_is_kept(self):
        from normbench_torch.dtypes import round_float32
        from normbench_torch.generator import NumpyBackend
        values = f32([0.1, -3.3])  # 0x3DCCCCCD (rounds up), 0xC0533333 (down)
        self.assertIs(round_float32(values, "float32"), values)
        rounded = NumpyBackend().round_to(values, "bfloat16")
        self.assertEqual(rounded.dtype, np.float32)
        self.assertEqual(rounded.view(np.uint32).tolist(), [0x3DCD0000, 0xC0530000])


@unittest.skipIf(np is None, "numpy is not installed")
class Reference(unittest.TestCase):
    def refs(self, p, **inputs):
        from normbench_torch.reference import NumpyMath, expected_rows
        rows = lambda a: f32(a).reshape(p["num_segments"], p["segment_size"])  # noqa: E731
        return expected_rows(NumpyMath(p["dtype"]), p, rows(inputs["x"]),
                             rows(inputs["residual"]) if "residual" in inputs else None,
                             inputs.get("weight"), inputs.get("bias"))

    def test_rms_norm(self):
        p = problem("rms_norm", [2, 2], [2])
        y = self.refs(p, x=[[3, 4], [-1, 0]], weight=f32([2, 0.5]))["y"]
        rms = [math.sqrt(12.5 + EPS), math.sqrt(0.5 + EPS)]
        expected = [3 / rms[0] * 2, 4 / rms[0] * 0.5, -1 / rms[1] * 2, 0.0]
        self.assertEqual(len(y), 4)
        for got, want in zip(y, expected):
            self.assertAlmostEqual(got, want, delta=1e-15)
        y = self.refs(problem("rms_norm", [1, 2], [2], affine=False), x=[[3, 4]])["y"]
        self.assertAlmostEqual(y[1], 4 / rms[0], delta=1e-15)

    def test_add_rms_norm_normalizes_the_stored_sum(self):
        # 1 + 3 * 2^-8 is a bfloat16 tie between 1 + 2^-7 and 1 + 2^-6: s is stored as
        # 1 + 2^-6, and y normalizes that, while s's reference is the exact sum.
        p = problem("add_rms_norm", [1, 2], [2], dtype="bfloat16", affine=False)
        refs = self.refs(p, x=[[1.0, 2.0]], residual=[[3 * 2.0 ** -8, 0.0]])
        self.assertEqual(refs["s"].tolist(), [1 + 3 * 2.0 ** -8, 2.0])
        stored = 1 + 2.0 ** -6
        rms = math.sqrt((stored ** 2 + 4.0) / 2 + EPS)
        self.assertAlmostEqual(refs["y"][0], stored / rms, delta=1e-15)
        self.assertAlmostEqual(refs["y"][1], 2.0 / rms, delta=1e-15)
        exact = 1 + 3 * 2.0 ** -8
        self.assertGreater(abs(refs["y"][0] - exact / math.sqrt((exact ** 2 + 4.0) / 2 + EPS)), 1e-3)
        # float32 too: 1 + 2^-24 is stored as 1 (a tie, to even).
        p = problem("add_rms_norm", [1, 2], [2], affine=False)
        refs = self.refs(p, x=[[1.0, 1.0]], residual=[[2.0 ** -24, 0.0]])
        self.assertEqual(refs["s"][0], 1 + 2.0 ** -24)
        self.assertAlmostEqual(refs["y"][0], 1 / math.sqrt(1 + EPS), delta=1e-15)

    def test_layer_norm_without_bias(self):
        p = problem("layer_norm", [1, 4], [4], has_bias=False)
        y = self.refs(p, x=[[1, 2, 3, 4]], weight=f32([1, 2, 3, 4]))["y"]
        rstd = 1 / math.sqrt(1.25 + EPS)
        for i, got in enumerate(y):
            self.assertAlmostEqual(got, (i + 1 - 2.5) * rstd * (i + 1), delta=1e-15)

    def test_group_norm_weight_and_bias_per_channel(self):
        p = problem("group_norm", [1, 2, 2], groups=1)
        y = self.refs(p, x=[[1, 2], [3, 4]], weight=f32([1, 2]), bias=f32([0, 10]))["y"]
        rstd = 1 / math.sqrt(1.25 + EPS)
        expected = [(v - 2.5) * rstd * w + b for v, w, b in ((1, 1, 0), (2, 1, 0), (3, 2, 10), (4, 2, 10))]
        for got, want in zip(y, expected):
            self.assertAlmostEqual(got, want, delta=1e-14)


@unittest.skipIf(np is None, "numpy is not installed")
class Verification(unittest.TestCase):
    def inputs(self, p, seed=3):
        from normbench_torch.generator import generate_numpy
        inputs = {}
        names = ["x"] + (["residual"] if p["has_residual"] else []) + \
            (["weight"] if p["affine"] else []) + (["bias"] if p["has_bias"] else [])
        for name in names:
            n = p["num_elements"] if name in ("x", "residual") else p["param_size"]
            values = generate_numpy({"dist": "normal", "mean": 0.0, "std": 1.0}, seed, name, 0, n)
            shape = p["shape"] if name in ("x", "residual") else p["param_shape"]
            inputs[name] = round_float32(values, p["dtype"]).reshape(shape)
        return inputs

    def right_outputs(self, p, inputs):
        """The reference rounded to the dtype: what a right kernel writes."""
        from normbench_torch.reference import NumpyMath, expected_rows
        rows = lambda a: a.reshape(p["num_segments"], p["segment_size"])  # noqa: E731
        refs = expected_rows(NumpyMath(p["dtype"]), p, rows(inputs["x"]),
                             rows(inputs["residual"]) if "residual" in inputs else None,
                             inputs.get("weight"), inputs.get("bias"))
        return {n: round_float32(refs[n].astype(np.float32), p["dtype"]).reshape(p["shape"])
                for n in p["outputs"]}

    def test_a_right_output_passes(self):
        from normbench_torch.verify import verify_arrays
        for p in (problem("rms_norm", [8, 64], [64], dtype="bfloat16"),
                  problem("add_rms_norm", [8, 2, 32], [2, 32], dtype="float16"),
                  problem("layer_norm", [4, 96], [96], has_bias=False),
                  problem("group_norm", [2, 8, 3, 5], groups=4, dtype="bfloat16", layout="nhwc")):
            inputs = self.inputs(p)
            record, why = verify_arrays(p, inputs, self.right_outputs(p, inputs), 1, 43)
            self.assertTrue(record["passed"], (p["op"], why, record["first_mismatches"]))
            self.assertIsNone(why)
            self.assertEqual(record["checked"], p["num_elements"] * len(p["outputs"]))
            self.assertEqual((record["trial"], record["seed"], record["violations"]), (1, 43, 0))

    def test_accuracy_in_units_of_the_rule_as_normbench_measures_it(self):
        from normbench_torch.verify import verify_arrays
        p = problem("rms_norm", [8, 64], [64], dtype="bfloat16")
        inputs = self.inputs(p)
        right = self.right_outputs(p, inputs)
        record, _ = verify_arrays(p, inputs, right)
        a = record["accuracy"][0]
        self.assertEqual(a["tensor"], "y")
        self.assertLessEqual(a["ulp"]["max"], 0.5)  # rounded once from the reference
        self.assertEqual(a["ulp"]["exactly_rounded"], 1.0)
        self.assertLess(a["tolerance_use"], 0.5)
        y = right["y"].copy()
        y[0, 0] = np.float32(y[0, 0]) * np.float32(1 + 2 ** -7)  # about one ULP off
        off, _ = verify_arrays(p, inputs, {"y": y})
        self.assertGreater(off["accuracy"][0]["ulp"]["max"], 0.5)
        self.assertLess(off["accuracy"][0]["ulp"]["exactly_rounded"], 1.0)
        f32 = problem("layer_norm", [4, 96], [96], has_bias=False)
        f32_record, _ = verify_arrays(f32, self.inputs(f32), self.right_outputs(f32, self.inputs(f32)))
        self.assertIsNone(f32_record["accuracy"][0]["ulp"])

    def test_one_output_reason_and_mismatches(self):
        from normbench_torch.verify import MAX_MISMATCHES, verify_arrays
        p = problem("rms_norm", [4, 8], [8], dtype="bfloat16")
        inputs = self.inputs(p)
        y = self.right_outputs(p, inputs)["y"].copy()
        y[0, 1] += 1.0
        y[2, 3] += 1.0
        y[3, 7] = np.nan
        record, why = verify_arrays(p, inputs, {"y": y})
        self.assertEqual(why, "3 of 32 elements outside |y - ref| <= 0.0078125 + 0.0078125 * |ref|"
                              " (1 NaN/Inf)")
        self.assertFalse(record["passed"])
        self.assertEqual((record["violations"], record["nonfinite"], record["checked"]), (3, 1, 32))
        first = record["first_mismatches"]
        self.assertEqual([(m["tensor"], m["index"], m["coords"]) for m in first],
                         [("y", 1, [0, 1]), ("y", 19, [2, 3]), ("y", 31, [3, 7])])
        self.assertEqual((first[2]["value"], first[2]["value_text"]), (None, "nan"))
        self.assertAlmostEqual(first[0]["value"] - first[0]["expected"], 1.0, delta=2 ** -6)
        y[:] = 100.0
        record, _ = verify_arrays(p, inputs, {"y": y})
        self.assertEqual(len(record["first_mismatches"]), MAX_MISMATCHES)

    def test_two_outputs_aggregate_and_name_their_tensor(self):
        from normbench_torch.verify import failure_summary, verify_arrays
        p = problem("add_rms_norm", [2, 16], [16], dtype="bfloat16")
        inputs = self.inputs(p)
        right = self.right_outputs(p, inputs)
        y, s = right["y"].copy(), right["s"].copy()
        y[1, 2] += 4.0
        s[0, 5] -= 2.0
        s[1, 15] += 3.0
        record, why = verify_arrays(p, inputs, {"y": y, "s": s}, 0, 42)
        self.assertEqual(why, "y: 1 of 32 elements outside |y - ref| <= 0.0078125 + 0.0078125 * |ref|; "
                              "s: 2 of 32 elements outside |s - ref| <= 0.0078125 + 0.0078125 * |ref|")
        self.assertEqual(failure_summary(record, why), "trial 0: " + why)
        self.assertEqual((record["checked"], record["violations"]), (64, 3))
        self.assertEqual([(m["tensor"], m["index"], m["coords"]) for m in record["first_mismatches"]],
                         [("y", 18, [1, 2]), ("s", 5, [0, 5]), ("s", 31, [1, 15])])
        self.assertGreaterEqual(record["max_abs_error"], 3.9)  # y's error, the largest
        # rel_l2 over both outputs together
        ref_y = self.right_outputs(p, inputs)
        self.assertGreater(record["rel_l2_error"], 0.0)
        only_s, _ = verify_arrays(p, inputs, {"y": ref_y["y"], "s": s})
        self.assertEqual([m["tensor"] for m in only_s["first_mismatches"]], ["s", "s"])
        self.assertLess(only_s["rel_l2_error"], record["rel_l2_error"])

    def test_channels_last_group_norm_reports_logical_coords(self):
        from normbench_torch.inputs import channels_last_order, logical_order
        from normbench_torch.verify import verify_arrays
        for ndim in (2, 3, 4, 5):
            order = channels_last_order(ndim)
            self.assertEqual(tuple(order[i] for i in logical_order(ndim)), tuple(range(ndim)))
        p = problem("group_norm", [2, 4, 3], groups=2, dtype="bfloat16", layout="nhwc")
        inputs = self.inputs(p)
        logical = self.right_outputs(p, inputs)["y"]
        stored = np.ascontiguousarray(logical.transpose(channels_last_order(3)))  # (N, L, C)
        self.assertEqual(stored.shape, (2, 3, 4))
        stored[1, 2, 3] += 10.0  # sample 1, position 2, channel 3
        record, _ = verify_arrays(p, inputs, {"y": stored.transpose(logical_order(3))})
        self.assertEqual([(m["index"], m["coords"]) for m in record["first_mismatches"]],
                         [(1 * 12 + 3 * 3 + 2, [1, 3, 2])])


if __name__ == "__main__":
    if np is None:
        print("skipped: NumPy is not installed")
        sys.exit(SKIP_EXIT_CODE)
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
