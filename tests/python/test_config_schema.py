#!/usr/bin/env python3
"""configs/normbench.schema.json: a valid Draft 2020-12 schema that accepts every shipped config
and rejects configs that normbench rejects (unknown fields, op-specific fields on the wrong op,
bad ids). Exits 77 (skipped) without the jsonschema package."""

import glob
import json
import os
import sys
import unittest

try:
    import jsonschema
except ImportError:
    jsonschema = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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

    def test_shipped_configs_validate(self):
        configs = [c for c in glob.glob(os.path.join(ROOT, "configs", "*.json"))
                   if not c.endswith("schema.json")]
        self.assertGreaterEqual(len(configs), 3)
        for path in configs:
            with open(path) as f:
                self.assertEqual(self.errors(json.load(f)), [], path)

    def test_minimal_config_validates(self):
        self.assertEqual(self.errors(problem()), [])
        for fields in ({"dtype": "bfloat16", "param_dtype": "float32", "bias": False},
                       {"op": "rms_norm", "affine": False, "dtype": "float16"},
                       {"op": "add_rms_norm", "inputs": {"residual": "normal"}},
                       {"op": "group_norm", "normalized_shape": None, "groups": 2,
                        "layout": "nhwc", "shape": [2, 4, 3]}):
            document = problem(**fields)
            document["problems"][0] = {k: v for k, v in document["problems"][0].items()
                                       if v is not None}
            self.assertEqual(self.errors(document), [], json.dumps(document))

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
            problem(inputs={"x": "gaussian"}),                        # unknown distribution
            problem(inputs={"x": {"dist": "normal", "std": -1}}),     # negative std
        ]
        for document in bad:
            for p in document.get("problems", []):  # None: the field left out
                for key in [k for k, v in p.items() if v is None]:
                    del p[key]
            self.assertNotEqual(self.errors(document), [], json.dumps(document))


if __name__ == "__main__":
    if jsonschema is None:
        print("skipped: the jsonschema package is not installed")
        sys.exit(77)
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
