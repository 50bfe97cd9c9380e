#!/usr/bin/env python3
"""configs/normbench.schema.json: a valid Draft 2020-12 schema that accepts every config in the
repository (configs/, the tests' configs, any other) and rejects configs that normbench rejects
(unknown fields, op-specific fields on the wrong op, bad ids, values out of range). With
NORMBENCH_BINARY set (ctest sets it), normbench itself judges the same documents, so that the
schema cannot drift from the parser unseen. Exits 77 (skipped) without the jsonschema package."""

import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import jsonschema
except ImportError:
    jsonschema = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NORMBENCH = os.environ.get("NORMBENCH_BINARY")


def repository_configs():
    """Every config file under the repository: a .json file that has "problems" but is neither a
    report nor a JSON Schema. Judged by the text, so that a config that is not even valid JSON is
    still found (and fails): a report has "schema_version" and "command_line", the first of its
    keys (a truncated report fixture may have no other), neither of which a config may have; a
    JSON Schema names json-schema.org's meta-schema. Build folders (build, build-dev, build-asan:
    whatever CMakePresets.json names) hold copies and outputs, not the repository's files."""
    paths = []
    for path in glob.glob(os.path.join(ROOT, "**", "*.json"), recursive=True):
        relative = os.path.relpath(path, ROOT)
        if relative.split(os.sep)[0].startswith("build"):
            continue
        with open(path, errors="replace") as f:
            text = f.read()
        is_report = '"schema_version"' in text or '"command_line"' in text
        if '"problems"' in text and not is_report and "json-schema.org" not in text:
            paths.append(relative)
    return sorted(paths)


def problem(**fields):
    p = {"id": "p", "op": "layer_norm", "shape": [2, 4], "normalized_shape": [4]}
    p.update(fields)
    return {"name": "t", "problems": [p]}


class ConfigSchema(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(ROOT, "configs", "normbench.schema.json")) as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        cls.validator = jsonschema.Draft202012Validator(schema)

    def errors(self, document):
        return list(self.validator.iter_errors(document))

    def normbench_accepts_file(self, path):
        """normbench's verdict on the config file: True (exit 0) or False (exit 2, a bad
        config); None without NORMBENCH_BINARY."""
        if not NORMBENCH:
            return None
        done = subprocess.run([NORMBENCH, "plan", "--config", path], capture_output=True,
                              text=True, timeout=60)
        self.assertIn(done.returncode, (0, 2), done.stdout + done.stderr)
        return done.returncode == 0

    def normbench_accepts(self, document):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "config.json")
            with open(path, "w") as f:
                json.dump(document, f)
            return self.normbench_accepts_file(path)

    def test_every_config_in_the_repository_validates(self):
        configs = repository_configs()
        # The finder must see the shipped configs and the tests' (tests/adversarial,
        # tests/kernelbench): a rule that missed them would pass on nothing.
        shipped = {os.path.relpath(c, ROOT)
                   for c in glob.glob(os.path.join(ROOT, "configs", "*.json"))
                   if not c.endswith("schema.json")}
        self.assertGreaterEqual(len(shipped), 3)
        self.assertLessEqual(shipped, set(configs))
        self.assertTrue(any(c.startswith("tests" + os.sep) for c in configs), configs)
        for path in configs:
            with open(os.path.join(ROOT, path)) as f:
                document = json.load(f)
            self.assertEqual([e.message for e in self.errors(document)], [], path)
            self.assertNotEqual(self.normbench_accepts_file(os.path.join(ROOT, path)), False, path)

    def test_minimal_config_validates(self):
        self.assertEqual(self.errors(problem()), [])
        for fields in ({"dtype": "bfloat16", "param_dtype": "float32", "bias": False},
                       {"op": "rms_norm", "affine": False, "dtype": "float16"},
                       {"op": "add_rms_norm", "inputs": {"residual": "normal"}},
                       {"op": "group_norm", "normalized_shape": None, "groups": 2,
                        "layout": "nhwc", "shape": [2, 4, 3]},
                       {"op": "group_norm", "normalized_shape": None, "shape": [2, 4, 3],
                        "sweep": {"groups": [1, 2, 4]}},                # groups only swept
                       {"sweep": {"rows": [1, 8], "shape[1]": [4, 8], "dtype": ["float16"]}},
                       {"op": "channel_rms_norm", "normalized_shape": None, "shape": [2, 4, 3],
                        "affine": False},                               # KernelBench's RMSNorm
                       {"op": "channel_rms_norm", "normalized_shape": None, "shape": [2, 4],
                        "dtype": "bfloat16", "sweep": {"shape[1]": [4, 64]}},
                       {"op": "group_norm", "normalized_shape": None, "shape": [2, 4, 3],
                        "groups": 4, "affine": False},                  # InstanceNorm2d
                       {"op": "group_norm_silu", "normalized_shape": None, "shape": [2, 4, 3],
                        "groups": 2, "layout": "nhwc", "bias": False,
                        "dtype": "bfloat16", "param_dtype": "float32"},  # UNet GroupNorm + SiLU
                       {"op": "group_norm_silu", "normalized_shape": None, "shape": [2, 4, 3],
                        "sweep": {"groups": [1, 2, 4]}},
                       {"op": "layer_norm_backward", "bias": False, "dtype": "bfloat16",
                        "inputs": {"dy": "normal"}},                    # gradients of layer_norm
                       {"op": "rms_norm_backward", "param_dtype": "float32", "dtype": "float16"},
                       {"op": "add_rms_norm_backward", "dtype": "bfloat16",
                        "inputs": {"ds_out": "normal"}},                # the residual stream's
                       {"op": "group_norm_backward", "normalized_shape": None, "shape": [2, 4, 3],
                        "groups": 2, "layout": "nhwc"},
                       {"timing": {"kernel_timeout_s": 3, "warmup": 1000000}},
                       {"trials": 1000000}):
            document = problem(**fields)
            document["problems"][0] = {k: v for k, v in document["problems"][0].items()
                                       if v is not None}
            self.assertEqual(self.errors(document), [], json.dumps(document))
            self.assertNotEqual(self.normbench_accepts(document), False, json.dumps(document))

    def test_rejects_what_normbench_rejects(self):
        bad = [
            {"problems": problem()["problems"]},                      # no name
            dict(problem(), extra=1),                                 # unknown top-level field
            dict(problem(), defaults={"timing": {"warmpu": 1}}),      # unknown timing field
            dict(problem(), defaults={"dtype": "float64"}),           # unsupported dtype
            dict(problem(), defaults={"layout": "nhwc"}),             # layout is not a setting
            problem(layout="nhwc"),                                   # layout on layer_norm
            problem(op="rms_norm", bias=False),                       # RMSNorm has no bias
            problem(op="add_rms_norm", normalized_shape=None),        # no normalized_shape
            problem(param_dtype="int8"),                              # unknown param_dtype
            problem(inputs={"residual": "gaussian"}),                 # unknown distribution
            problem(grups=2),                                         # unknown problem field
            problem(groups=2),                                        # groups on layer_norm
            problem(op="group_norm", normalized_shape=[4]),           # group_norm without groups
            problem(id=".."),                                         # id that is a path
            problem(id="a" * 129),                                    # id too long
            dict(problem(), name="../x"),                             # name that is a path
            dict(problem(), name="a/b"),                              # name with a folder
            dict(problem(), name="n" * 129),                          # name too long
            problem(shape=[2, 0]),                                    # non-positive dim
            problem(eps=0),                                           # eps must be > 0
            problem(eps=1e-50),                                       # 0 in float32
            problem(inputs={"x": "gaussian"}),                        # unknown distribution
            problem(inputs={"x": {"dist": "normal", "std": -1}}),     # negative std
            problem(timing={"kernel_timeout_s": 0}),                  # timeout must be > 0
            problem(timing={"warmup": 1000001}),                      # above normbench's limit
            problem(timing={"min_samples": 0}),                       # at least one sample
            problem(trials=1000001),                                  # above normbench's limit
            problem(sweep={"groups": [1, 2]}),                        # groups axis on layer_norm
            problem(sweep={"rows": [0]}),                             # non-positive size
            problem(sweep={"rows": [2 ** 40 + 1]}),                   # above normbench's limit
            problem(sweep={"rows": [1, 1]}),                          # a value twice
            problem(sweep={"colour": [1]}),                           # unknown axis
            problem(sweep={"rows": [1, 2], "shape[0]": [3, 4]}),      # one dim, two axes
            problem(op="group_norm", normalized_shape=None,           # groups neither given
                    shape=[2, 4, 3], sweep={"rows": [1, 2]}),         # nor swept
            problem(op="channel_rms_norm"),                           # normalizes dim 1 only
            problem(op="channel_rms_norm", normalized_shape=None,     # N and C at least
                    shape=[8]),
            problem(op="channel_rms_norm", normalized_shape=None, groups=2),
            problem(op="channel_rms_norm", normalized_shape=None, bias=False),
            problem(op="channel_rms_norm", normalized_shape=None, layout="nchw"),
            problem(op="channel_rms_norm", normalized_shape=None,     # groups axis
                    sweep={"groups": [1, 2]}),
            problem(op="group_norm_silu"),                            # no groups, a row op's
            problem(op="group_norm_silu", normalized_shape=None,      # groups neither given
                    shape=[2, 4, 3], sweep={"rows": [1, 2]}),         # nor swept
            problem(op="group_norm_silu", normalized_shape=None, shape=[2, 4, 3], groups=2,
                    scale=2.0),                                       # no scale
            problem(op="rms_norm_backward", bias=True),               # RMSNorm has no bias
            problem(op="layer_norm_backward", layout="nhwc"),         # rows are contiguous
            problem(op="layer_norm_backward", scale=2.0),             # no scale
            problem(op="group_norm_backward"),                        # no groups, a row op's
            problem(op="add_rms_norm_backward", bias=False),          # RMSNorm has no bias
            problem(op="add_rms_norm_backward", normalized_shape=None),  # no normalized_shape
            problem(op="add_rms_norm_backward", inputs={"ds_out": "gaussian"}),  # no such dist
            problem(inputs={"dz": "normal"}),                         # no such input
        ]
        for document in bad:
            for p in document.get("problems", []):  # None: the field left out
                for key in [k for k, v in p.items() if v is None]:
                    del p[key]
            self.assertNotEqual(self.errors(document), [], json.dumps(document))
            self.assertNotEqual(self.normbench_accepts(document), True, json.dumps(document))


if __name__ == "__main__":
    if jsonschema is None:
        print("skipped: the jsonschema package is not installed")
        sys.exit(77)
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
