#!/usr/bin/env python3
"""results/report.schema.json: a valid Draft 2020-12 schema that accepts every committed run
report (results/, the test fixtures) and rejects the fixtures made to be broken. Exits 77
(skipped) without jsonschema."""

import copy
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
# Fixtures made to be refused by `normbench compare` (tests/fixtures/compare/make_fixtures.py).
BROKEN = {"malformed.json", "wrong_schema.json", "missing_key.json"}


def load(path):
    with open(path) as f:
        return json.load(f)


class ReportSchema(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        schema = load(os.path.join(ROOT, "results", "report.schema.json"))
        jsonschema.Draft202012Validator.check_schema(schema)
        cls.validator = jsonschema.Draft202012Validator(schema)

    def errors(self, document):
        return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"[:300]
                for e in self.validator.iter_errors(document)]

    def reports(self):
        paths = (glob.glob(os.path.join(ROOT, "results", "**", "*.json"), recursive=True) +
                 glob.glob(os.path.join(ROOT, "tests", "fixtures", "*.json")) +
                 glob.glob(os.path.join(ROOT, "tests", "fixtures", "*", "*.json")))
        return [p for p in paths
                if os.path.basename(p) not in BROKEN and not p.endswith(".schema.json")]

    def test_committed_reports_validate(self):
        paths = self.reports()
        self.assertGreaterEqual(len(paths), 15)
        for path in paths:
            self.assertEqual(self.errors(load(path)), [], path)

    def test_the_writers_schema_2_fixture_is_covered(self):
        # tests/fixtures/report/writer_v2.json is the C++ writer's output (report_test.cpp).
        doc = load(os.path.join(ROOT, "tests", "fixtures", "report", "writer_v2.json"))
        self.assertEqual(doc["schema_version"], 2)
        self.assertEqual(self.errors(doc), [])
        bad = copy.deepcopy(doc)
        bad["problems"][0]["kernels"][0]["timing"]["checks"]["method"] = "trust"
        self.assertNotEqual(self.errors(bad), [])

    def test_broken_fixtures_do_not(self):
        for name in BROKEN - {"malformed.json"}:
            doc = load(os.path.join(ROOT, "tests", "fixtures", "compare", name))
            self.assertNotEqual(self.errors(doc), [], name)

    def test_rejects_what_the_reader_refuses(self):
        base = load(os.path.join(ROOT, "tests", "fixtures", "h100_kernelbench_v1.json"))
        edits = [
            lambda d: d.update(schema_version=3),
            lambda d: d["config"].pop("hash"),
            lambda d: d["problems"][0]["kernels"][0].update(status="great"),
            lambda d: d["problems"][0]["kernels"][0].pop("status"),
            lambda d: d["problems"][0]["kernels"][0]["timing"].update(samples_ms=[]),
            lambda d: d["problems"][0]["kernels"][0].update(status="failed"),  # failed but timed
            lambda d: d["problems"][0].update(shape=[0, 4]),
        ]
        for edit in edits:
            doc = copy.deepcopy(base)
            edit(doc)
            self.assertNotEqual(self.errors(doc), [])


if __name__ == "__main__":
    if jsonschema is None:
        print("skipped: the jsonschema package is not installed")
        sys.exit(77)
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
