#!/usr/bin/env python3
"""python/normbench_torch without PyTorch or a GPU: the bridge's strides and error answers, the
KernelBench adapter's choice of op, and how functions are called."""

import json
import os
import sys
import tempfile
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

from normbench_torch import bridge, candidates, kernelbench  # noqa: E402
from normbench_torch.candidates import CandidateError, NotSupported  # noqa: E402


def problem(**over):
    p = {"op": "layer_norm", "shape": [4, 64], "normalized_shape": [64], "groups": None,
         "channels": 0, "eps": 1e-5, "scale": 1.0, "affine": True, "has_bias": True,
         "has_residual": False, "dtype": "float32", "param_dtype": "float32", "layout": "nchw",
         "param_shape": [64], "backward": False, "inputs": ["x", "weight", "bias"],
         "outputs": ["y"], "stat_shape": [4]}
    p.update(over)
    return p


GROUP = problem(op="group_norm", shape=[2, 8, 4, 4], normalized_shape=None, groups=2, channels=8,
                param_shape=[8])
INSTANCE = dict(GROUP, groups=8, affine=False, has_bias=False)
CHANNEL_RMS = problem(op="channel_rms_norm", shape=[2, 8, 4, 4], normalized_shape=None,
                      channels=8, affine=False, has_bias=False, param_shape=[8])
GROUP_SILU = dict(GROUP, op="group_norm_silu")
LAYER_NORM_BACKWARD = problem(op="layer_norm_backward", backward=True, shape=[2, 3, 64],
                              stat_shape=[2, 3], inputs=["x", "weight", "dy", "mean", "rstd"],
                              outputs=["dx", "dweight", "dbias"])
ADD_RMS_NORM_BACKWARD = problem(op="add_rms_norm_backward", backward=True, has_bias=False,
                                inputs=["x", "weight", "dy", "ds_out", "rstd"],
                                outputs=["dx", "dweight"])


class Strides(unittest.TestCase):
    def test_contiguous(self):
        self.assertEqual(bridge.element_strides([2, 3, 4, 5], False), [60, 20, 5, 1])

    def test_channels_last_is_n_spatial_c(self):
        self.assertEqual(bridge.element_strides([2, 3, 4, 5], True), [60, 1, 15, 3])
        self.assertEqual(bridge.element_strides([2, 3, 7], True), [21, 1, 3])


class Answers(unittest.TestCase):
    def test_a_candidate_error_is_its_own_words(self):
        def work(request):
            raise CandidateError("returned y of shape [4]")
        self.assertEqual(json.loads(bridge._answer(work, "{}")), {"error": "returned y of shape [4]"})

    def test_any_exception_and_even_exit_comes_back_as_an_error(self):
        def raises(request):
            raise ValueError("bad\nlast line")
        self.assertEqual(json.loads(bridge._answer(raises, "{}")), {"error": "ValueError: last line"})
        self.assertIn("SystemExit", json.loads(bridge._answer(lambda r: sys.exit(3), "{}"))["error"])

    def test_a_launch_of_an_unknown_handle_is_an_error_not_a_crash(self):
        self.assertIn("error", json.loads(bridge.launch(json.dumps({"handle": 12345}))))


class FakeFunctional:
    """torch.nn.functional as op_function uses it: each call returns what it was called on."""

    @staticmethod
    def group_norm(x, groups, w, b, eps):
        return ("group_norm", x, groups, w, b, eps)

    @staticmethod
    def silu(v):
        return ("silu", v)


class TorchForms(unittest.TestCase):
    def op(self, p, *args):
        import types
        torch = types.ModuleType("torch")
        torch.nn = types.ModuleType("torch.nn")
        torch.nn.functional = FakeFunctional
        saved = {k: sys.modules.get(k) for k in ("torch", "torch.nn", "torch.nn.functional")}
        sys.modules.update({"torch": torch, "torch.nn": torch.nn,
                            "torch.nn.functional": FakeFunctional})
        try:
            return candidates.op_function(p)(*args)
        finally:
            for k, v in saved.items():
                if v is None:
                    sys.modules.pop(k)
                else:
                    sys.modules[k] = v

    def test_group_norm_silu_is_silu_of_group_norm_with_its_groups_and_eps(self):
        self.assertEqual(self.op(GROUP_SILU, "x", "w", "b", None),
                         ("silu", ("group_norm", "x", 2, "w", "b", 1e-5)))
        self.assertEqual(self.op(GROUP, "x", "w", "b", None), ("group_norm", "x", 2, "w", "b", 1e-5))


class Once(unittest.TestCase):
    def test_a_module_is_loaded_once_and_its_failure_kept(self):
        calls = []

        def load(key):
            calls.append(key)
            if key == "bad":
                raise CandidateError("cannot import bad")
            return key.upper()
        cache = {}
        self.assertEqual(bridge._once(cache, "m", load), "M")
        self.assertEqual(bridge._once(cache, "m", load), "M")
        for _ in range(2):
            with self.assertRaisesRegex(CandidateError, "cannot import bad"):
                bridge._once(cache, "bad", load)
        self.assertEqual(calls, ["m", "bad"])


class KernelBenchOps(unittest.TestCase):
    def test_layer_norm_model_on_layer_norm(self):
        args = kernelbench.kernelbench_arguments([("normalized_shape", False), ("eps", True)], problem())
        self.assertEqual(args, {"normalized_shape": (64,), "eps": 1e-5})

    def test_other_ops_are_not_supported(self):
        with self.assertRaises(NotSupported):
            kernelbench.kernelbench_arguments([("normalized_shape", False)], problem(op="rms_norm"))
        with self.assertRaisesRegex(NotSupported, "computes layer_norm"):
            kernelbench.kernelbench_arguments([("normalized_shape", False)], GROUP)
        # A KernelBench GroupNorm model computes no SiLU: it is not group_norm_silu.
        with self.assertRaisesRegex(NotSupported, "the problem is group_norm_silu"):
            kernelbench.kernelbench_arguments([("num_groups", False)], GROUP_SILU)

    def test_a_channel_count_alone_is_told_by_the_file(self):
        params = [("num_features", False)]
        rms_source = "rms = torch.sqrt(torch.mean(x ** 2, dim=1))  # RMSNorm"
        instance_source = "self.inorm = nn.InstanceNorm2d(num_features)"
        self.assertEqual(kernelbench.kernelbench_arguments(params, CHANNEL_RMS, rms_source),
                         {"num_features": 8})
        self.assertEqual(kernelbench.kernelbench_arguments(params, INSTANCE, instance_source),
                         {"num_features": 8})
        with self.assertRaises(NotSupported):
            kernelbench.kernelbench_arguments(params, INSTANCE, rms_source)
        with self.assertRaises(NotSupported):
            kernelbench.kernelbench_arguments(params, CHANNEL_RMS, instance_source)
        with self.assertRaisesRegex(NotSupported, "the problem is group_norm"):
            kernelbench.kernelbench_arguments(params, GROUP, instance_source)
        # A file that names neither may be either.
        self.assertEqual(kernelbench.kernelbench_arguments(params, INSTANCE, "x"), {"num_features": 8})

    def test_a_required_parameter_without_a_value(self):
        with self.assertRaisesRegex(NotSupported, "'dropout'"):
            kernelbench.kernelbench_arguments([("normalized_shape", False), ("dropout", False)], problem())


class Functions(unittest.TestCase):
    def test_a_function_with_out_writes_in_place(self):
        seen = {}

        def writes(x, w, b, problem, out=None):
            seen["out"] = out

        def returns(x, w, b, problem):
            return "y"

        built = candidates.python_function(writes, problem())
        self.assertTrue(built.in_place)
        built.call("x", "w", "b", None, "Y")
        self.assertEqual(seen["out"], "Y")
        built = candidates.python_function(returns, problem())
        self.assertFalse(built.in_place)
        self.assertEqual(built.call("x", "w", "b", None, "Y"), "y")

    def test_a_backward_function_gets_the_gradients_inputs_and_returns_its_outputs(self):
        seen = {}

        def writes(x, dy, w, mean, rstd, problem, out=None):
            seen["args"] = (x, dy, w, mean, rstd, problem["op"], problem["outputs"])
            seen["out"] = out

        def returns(x, dy, w, mean, rstd, problem):
            return ("dx", "dweight", "dbias")

        built = candidates.python_function(writes, LAYER_NORM_BACKWARD)
        self.assertTrue(built.in_place)
        built.call("x", "dy", "w", "mean", "rstd", ("DX", "DW", "DB"))
        self.assertEqual(seen["args"], ("x", "dy", "w", "mean", "rstd", "layer_norm_backward",
                                        ["dx", "dweight", "dbias"]))
        self.assertEqual(seen["out"], ("DX", "DW", "DB"))
        built = candidates.python_function(returns, LAYER_NORM_BACKWARD)
        self.assertEqual(built.call("x", "dy", "w", "mean", "rstd", None),
                         ("dx", "dweight", "dbias"))

    def test_add_rms_norm_backward_functions_get_ds_out_by_name(self):
        seen = {}

        def writes(x, dy, w, mean, rstd, problem, ds_out=None, out=None):
            seen["args"] = (x, dy, w, mean, rstd, ds_out, out)

        def returns(x, dy, w, mean, rstd, problem, ds_out=None):
            return ("dx of " + x + " plus " + ds_out, "dweight")

        built = candidates.python_function(writes, ADD_RMS_NORM_BACKWARD)
        self.assertTrue(built.in_place)
        built.call("s", "dy", "w", None, "rstd", ("DX", "DW"), ds_out="ds")
        self.assertEqual(seen["args"], ("s", "dy", "w", None, "rstd", "ds", ("DX", "DW")))
        built = candidates.python_function(returns, ADD_RMS_NORM_BACKWARD)
        self.assertEqual(built.call("s", "dy", "w", None, "rstd", None, ds_out="ds"),
                         ("dx of s plus ds", "dweight"))
        # PyTorch's candidates likewise: ds_out reaches the function, which other ops never get.
        call = candidates.backward_call(lambda *a: a, ADD_RMS_NORM_BACKWARD)
        self.assertEqual(call("s", "dy", "w", None, "rstd", None, ds_out="ds"),
                         ("s", "dy", "w", None, "rstd", "ds"))
        call = candidates.backward_call(lambda *a: a, LAYER_NORM_BACKWARD)
        self.assertEqual(call("x", "dy", "w", "mean", "rstd", None), ("x", "dy", "w", "mean", "rstd"))

    def test_the_kernelbench_adapter_takes_no_backward_op(self):
        with self.assertRaisesRegex(NotSupported, "the problem is layer_norm_backward"):
            kernelbench.kernelbench_arguments([("normalized_shape", False)], LAYER_NORM_BACKWARD)

    def test_the_problem_a_function_sees_is_its_own_copy(self):
        p = problem()
        seen = candidates.callable_problem(p)
        seen["shape"].append(1)
        self.assertEqual(p["shape"], [4, 64])

    def test_an_import_that_fails_is_a_candidate_error(self):
        with self.assertRaisesRegex(CandidateError, "cannot import no_such_module_here:f"):
            candidates.import_callable("no_such_module_here:f")


class FakeStream:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def wait_stream(self, other):
        self.log.append("%s waits for %s" % (self.name, other.name))


class FakeTorch:
    """What _Prepared.launch asks of torch, recorded."""

    def __init__(self):
        self.log = []
        torch = self

        class Cuda:
            @staticmethod
            def default_stream(device):
                return FakeStream("legacy", torch.log)

            @staticmethod
            def ExternalStream(address, device=None):
                return FakeStream("given", torch.log)

            class stream:
                def __init__(self, s):
                    self.s = s

                def __enter__(self):
                    torch.log.append("current: " + self.s.name)

                def __exit__(self, *a):
                    torch.log.append("current restored")
        self.cuda = Cuda

        class NoGrad:
            def __enter__(self):
                torch.log.append("no grad")

            def __exit__(self, *a):
                pass
        self.no_grad = NoGrad


class BackwardForms(unittest.TestCase):
    """backward_function's calls of aten's backward ops, on a torch that records them."""

    def forms(self, p, fused_rms=True):
        calls = []
        R = self.Result
        aten = types.SimpleNamespace(
            native_layer_norm_backward=lambda *a: calls.append(("layer_norm", a)) or (R("dx"), R("dw"), R("db")),
            native_group_norm_backward=lambda *a: calls.append(("group_norm", a)) or (R("dx"), R("dw"), R("db")))
        if fused_rms:
            aten._fused_rms_norm_backward = lambda *a: calls.append(("rms", a)) or (R("dx"), R("dw"))
        torch = types.SimpleNamespace(ops=types.SimpleNamespace(aten=aten), float32="f32",
                                      bfloat16="bf16", float16="f16",
                                      empty=lambda shape, dtype, device: ("bias_like", shape))
        return candidates.backward_function(torch, p), calls

    class Result(str):
        """An output of a fake aten op (or the weight), compared by name; .to keeps it."""
        dtype = "bf16"

        def to(self, dtype):
            return self

    class Tensor:
        dtype = "bf16"

        def __init__(self, name):
            self.name = name

        def view(self, shape):
            return (self.name, "viewed", list(shape))

        def to(self, dtype):
            return (self.name, "as", dtype)

        def contiguous(self):
            return (self.name, "contiguous")

    def test_layer_norm_keeps_the_normalized_dims_of_the_statistics(self):
        f, calls = self.forms(LAYER_NORM_BACKWARD)
        T = self.Tensor
        self.assertEqual(f(T("x"), T("dy"), self.Result("w"), T("mean"), T("rstd")), ("dx", "dw", "db"))
        (name, a), = calls
        self.assertEqual(name, "layer_norm")
        self.assertEqual(a[2:], ([64], ("mean", "viewed", [2, 3, 1]), ("rstd", "viewed", [2, 3, 1]),
                                 "w", ("bias_like", [64]), [True, True, True]))
        no_bias = dict(LAYER_NORM_BACKWARD, has_bias=False, outputs=["dx", "dweight"])
        f, calls = self.forms(no_bias)
        self.assertEqual(f(T("x"), T("dy"), self.Result("w"), T("mean"), T("rstd")), ("dx", "dw"))
        self.assertEqual(calls[0][1][6:], (None, [True, True, False]))
        # Without a weight the one output is dx itself, not a tuple of one.
        no_affine = dict(LAYER_NORM_BACKWARD, affine=False, has_bias=False, outputs=["dx"])
        f, calls = self.forms(no_affine)
        self.assertEqual(f(T("x"), T("dy"), None, T("mean"), T("rstd")), "dx")

    def test_group_norm_gets_its_statistics_in_the_datas_type_and_nchw_tensors(self):
        p = dict(GROUP, op="group_norm_backward", backward=True, stat_shape=[2, 2],
                 outputs=["dx", "dweight", "dbias"])
        f, calls = self.forms(p)
        T = self.Tensor
        f(T("x"), T("dy"), self.Result("w"), T("mean"), T("rstd"))
        (name, a), = calls
        self.assertEqual(a, (("dy", "contiguous"), ("x", "contiguous"), ("mean", "as", "bf16"),
                             ("rstd", "as", "bf16"), "w", 2, 8, 16, 2, [True, True, True]))

    def test_rms_norm_uses_the_fused_backward_where_pytorch_has_it(self):
        p = problem(op="rms_norm_backward", backward=True, has_bias=False, shape=[4, 64],
                    outputs=["dx", "dweight"])
        f, calls = self.forms(p)
        self.assertEqual(f(self.Tensor("x"), self.Tensor("dy"), self.Result("w"), None, self.Tensor("rstd")),
                         ("dx", "dw"))
        self.assertEqual(calls[0][1][2:], ([64], ("rstd", "viewed", [4, 1]), "w", [True, True]))
        f, calls = self.forms(p, fused_rms=False)
        self.assertEqual(f.__name__, "formula")

    class DsOut:
        """ds_out as dx + ds_out sees it: the sum, named."""

        def __radd__(self, dx):
            return BackwardForms.Result(dx + " + ds_out")

    def test_add_rms_norm_is_rms_norms_backward_of_s_plus_ds_out(self):
        T = self.Tensor
        f, calls = self.forms(ADD_RMS_NORM_BACKWARD)
        self.assertEqual(f(T("s"), T("dy"), self.Result("w"), None, T("rstd"), self.DsOut()),
                         ("dx + ds_out", "dw"))
        (name, a), = calls
        self.assertEqual(name, "rms")
        self.assertEqual((a[0].name, a[1].name), ("dy", "s"))
        self.assertEqual(a[2:], ([64], ("rstd", "viewed", [4, 1]), "w", [True, True]))
        f, calls = self.forms(ADD_RMS_NORM_BACKWARD, fused_rms=False)
        self.assertEqual(f.__name__, "formula")

    def test_an_op_pytorch_has_no_backward_for_is_not_supported(self):
        with self.assertRaises(NotSupported):
            self.forms(dict(GROUP_SILU, backward=True))


class Launch(unittest.TestCase):
    def launch(self, call):
        torch = FakeTorch()
        built = candidates.Built(call, in_place=True)
        prepared = bridge._Prepared(torch, built, problem(), "cuda:0")
        prepared._views = lambda r: {"x": "x", "weight": "w", "bias": "b", "y": "y"}
        request = {"x": 1, "weight": 2, "bias": 3, "residual": 0, "y": 4, "sum": 0, "stream": 99}
        return torch.log, (lambda: prepared.launch(request))

    def test_the_call_runs_on_the_given_stream_forked_to_and_joined_from_the_legacy_one(self):
        log, run = self.launch(lambda x, w, b, r, out: log.append("call"))
        run()
        self.assertEqual(log, ["legacy waits for given", "current: given", "no grad", "call",
                               "current restored", "given waits for legacy"])

    def test_a_backward_call_gets_ds_out_by_name_only_where_the_problem_has_it(self):
        # Each view is named by its tensor, upper-cased.
        for p, expected in ((ADD_RMS_NORM_BACKWARD, {"ds_out": "DS_OUT"}),
                            (LAYER_NORM_BACKWARD, {})):
            seen = {}
            prepared = bridge._Prepared(FakeTorch(), candidates.Built(
                lambda *a, **named: seen.update(named), in_place=True), p, "cuda:0")
            names = p["inputs"] + p["outputs"]
            prepared._views = lambda r, names=names: {n: n.upper() for n in names}
            prepared.launch({"x": 1, "stream": 99})
            self.assertEqual(seen, expected)

    def test_a_call_that_raises_is_joined_all_the_same(self):
        def raises(x, w, b, r, out):
            raise ValueError("no")
        log, run = self.launch(raises)
        with self.assertRaises(ValueError):
            run()
        self.assertEqual(log[-1], "given waits for legacy")


class Unprintable(Exception):
    """An exception whose str() raises: describing it must not raise in turn."""

    def __str__(self):
        raise self


class InterruptsWhenShown(Exception):
    def __str__(self):
        raise KeyboardInterrupt


class LyingPair(tuple):
    """A tuple that says it holds two items and yields one."""

    def __len__(self):
        return 2


def strict_error(answer):
    """The error of a bridge answer as normbench's JSON parser reads it: UTF-8 only, so a lone
    surrogate (Python's stand-in for an undecodable byte) would fail the whole answer."""
    error = json.loads(answer)["error"]
    error.encode("utf-8")
    return error


class HostileSubmissions(unittest.TestCase):
    """Whatever a submission raises or returns, the bridge answers {"error": ...} and raises
    nothing into the worker's C++ (which would end the worker as a fault)."""

    def test_exceptions_that_cannot_be_described_still_answer(self):
        for exception in (Unprintable(), InterruptsWhenShown(), KeyboardInterrupt(), SystemExit(2),
                          GeneratorExit(), MemoryError()):
            def work(request, e=exception):
                raise e
            self.assertIn(type(exception).__name__, strict_error(bridge._answer(work, "{}")))

    def test_a_candidate_error_that_cannot_be_described_still_answers(self):
        class Odd(CandidateError):
            def __str__(self):
                raise self
        self.assertIn("Odd", strict_error(bridge._answer(lambda r: (_ for _ in ()).throw(Odd()),
                                                         "{}")))

    def test_an_unprintable_exception_is_no_dtype_refusal(self):
        self.assertIsNone(candidates.refused_dtypes(problem(), Unprintable()))
        refused = candidates.refused_dtypes(problem(), RuntimeError("expected scalar type Float"))
        self.assertIsInstance(refused, NotSupported)

    def test_a_huge_or_undecodable_message_is_bounded_and_utf8(self):
        def huge(request):
            raise ValueError("x" * 10000000)
        self.assertLess(len(strict_error(bridge._answer(huge, "{}"))), 2000)

        def undecodable(request):
            raise ValueError(os.fsdecode(b"name \xff"))
        self.assertIn("name", strict_error(bridge._answer(undecodable, "{}")))

    def test_a_submission_that_replaces_json_does_not_silence_the_bridge(self):
        import json as real_json
        saved_dumps, saved_module = real_json.dumps, sys.modules["json"]

        def tampers(request):
            real_json.dumps = lambda *a, **k: 1 / 0
            sys.modules["json"] = types.ModuleType("json")
            raise ValueError("after tampering")
        try:
            answer = bridge._answer(tampers, "{}")
        finally:
            real_json.dumps, sys.modules["json"] = saved_dumps, saved_module
        self.assertEqual(strict_error(answer), "ValueError: after tampering")


class FakeTorchModule(types.ModuleType):
    """The `torch` that bridge._plan imports, enough to build a candidate without a GPU."""

    def __init__(self):
        super().__init__("torch")
        self.float32 = "float32"
        self.device = lambda kind, index: "%s:%d" % (kind, index)
        self.cuda = types.SimpleNamespace(set_device=lambda d: None, synchronize=lambda d=None: None,
                                          empty_cache=lambda: None)


class PlanningHostileModels(unittest.TestCase):
    def plan(self, source):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "submission.py")
            with open(path, "w") as f:
                f.write(source)
            saved = sys.modules.get("torch")
            sys.modules["torch"] = FakeTorchModule()
            try:
                request = {"candidate": {"kind": "kernelbench", "path": path},
                           "problem": problem(), "device": 0}
                return strict_error(bridge.plan(json.dumps(request)))
            finally:
                bridge._state["classes"].clear()
                if saved is None:
                    del sys.modules["torch"]
                else:
                    sys.modules["torch"] = saved

    def test_a_constructor_that_raises_the_unprintable_is_an_error(self):
        error = self.plan("class E(Exception):\n    def __str__(self):\n        raise self\n"
                          "class ModelNew:\n    def __init__(self, normalized_shape):\n"
                          "        raise E()\n")
        self.assertIn("ModelNew", error)

    def test_a_constructor_whose_signature_cannot_be_read_is_named(self):
        error = self.plan("class ModelNew:\n    def __init__(self, normalized_shape):\n"
                          "        pass\n    __init__.__signature__ = 'not a signature'\n")
        self.assertIn("cannot read the parameters of ModelNew's constructor", error)


class ReturnedOutputs(unittest.TestCase):
    def checked(self, out, p):
        class Tensor:
            shape, dtype, device = p["shape"], "float32", "cuda:0"

        torch = types.SimpleNamespace(Tensor=Tensor, float32="float32", bfloat16="bf16",
                                      float16="f16")
        prepared = bridge._Prepared(torch, candidates.Built(None), p, "cuda:0")
        return prepared._checked(out(Tensor()))

    def test_add_rms_norm_must_return_two_outputs(self):
        p = problem(op="add_rms_norm", has_residual=True, outputs=["y", "s"])
        self.assertEqual(len(self.checked(lambda t: (t, t), p)), 2)
        for wrong in (lambda t: t, lambda t: (t,), lambda t: (t, t, t), lambda t: LyingPair((t,))):
            with self.assertRaisesRegex(CandidateError, "return \\(y, s\\)"):
                self.checked(wrong, p)

    def test_a_backward_op_returns_each_output_in_its_own_shape(self):
        p = LAYER_NORM_BACKWARD

        class Tensor:
            dtype, device = "float32", "cuda:0"

            def __init__(self, shape):
                self.shape = shape
        tensor = Tensor
        torch = types.SimpleNamespace(Tensor=Tensor, float32="float32", bfloat16="bf16",
                                      float16="f16")
        prepared = bridge._Prepared(torch, candidates.Built(None), p, "cuda:0")
        dx, dw = tensor([2, 3, 64]), tensor([64])
        self.assertEqual(len(prepared._checked((dx, dw, tensor([64])))), 3)
        with self.assertRaisesRegex(CandidateError, "layer_norm_backward candidates return "
                                                    "\\(dx, dweight, dbias\\)"):
            prepared._checked((dx, dw))
        with self.assertRaisesRegex(CandidateError, "returned dweight of shape \\[2, 3, 64\\]; "
                                                    "the problem's is \\[64\\]"):
            prepared._checked((dx, dx, dw))


if __name__ == "__main__":
    unittest.main()
