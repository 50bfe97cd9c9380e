#!/usr/bin/env python3
"""The rooms of app/ include only downward: each folder of app/ includes only the folders before
it in LAYERS (and kernels/, reference/), and kernels/ and reference/ never include app/. So no
two rooms depend on each other, and a reader can learn the code from the bottom up.

Run: python3 tests/python/test_layering.py
"""

import glob
import os
import re
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Lowest first: a room may include the rooms before it.
LAYERS = ["util", "config", "check", "device", "timing", "inputs", "results", "compare",
          "worker", "run", "plugin", "python", "render", "cli"]
INCLUDE = re.compile(r'#include "app/([^/"]+)/')


def includes_of(path):
    with open(path, encoding="utf-8") as f:
        return [m.group(1) for m in map(INCLUDE.match, f) if m]


class Layering(unittest.TestCase):
    def test_app_rooms_include_only_rooms_below(self):
        wrong = []
        for path in glob.glob(os.path.join(ROOT, "app", "*", "*.*")):
            room = os.path.basename(os.path.dirname(path))
            self.assertIn(room, LAYERS, "%s is in no layer: add its folder to LAYERS" % path)
            for target in includes_of(path):
                if target != room and (target not in LAYERS or LAYERS.index(target) > LAYERS.index(room)):
                    wrong.append("%s includes app/%s/" % (os.path.relpath(path, ROOT), target))
        self.assertEqual(wrong, [])

    def test_kernels_and_reference_never_include_app(self):
        wrong = []
        for folder in ("kernels", "reference"):
            for path in glob.glob(os.path.join(ROOT, folder, "**", "*.*"), recursive=True):
                if path.endswith((".cpp", ".hpp", ".cu", ".cuh", ".h")) and includes_of(path):
                    wrong.append(os.path.relpath(path, ROOT))
        self.assertEqual(wrong, [])


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
