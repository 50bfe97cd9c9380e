#!/usr/bin/env python3
"""What the README and docs/ repeat of the program is the program's own output: between a line
`<!-- normbench: ARGS -->` and the line `<!-- end normbench -->` stands the output of
`normbench ARGS` (paths from the repository root; --help texts in a text block, the rest, such
as `report ... --format summary --out -` tables, as they are). Without --write, exits 1 naming
each block that differs (the docs drifted from the program or the committed results); with
--write, rewrites them. It also checks what the front door promises: the README within its
length, no issue numbers, lab-note words or commit hashes in the README, docs/, the code, the
tests and the scripts (kernels/NOTES.md is where the project's history lives).

    NORMBENCH=build/normbench scripts/generated_docs.py [--write]
"""

import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NORMBENCH = os.environ.get("NORMBENCH", os.path.join(ROOT, "build", "normbench"))
BLOCK = re.compile(r"(<!-- normbench: ([^>]*?) -->\n)(.*?)(<!-- end normbench -->)", re.S)
README_MAX_LINES = 260
# Words of the project's history, which belong in kernels/NOTES.md and closing notes.
HISTORY = [(re.compile(r"\bissue[ -]?#?\d+", re.I), "an issue number"),
           (re.compile(r"\bsittings?\b", re.I), "the lab-note word 'sitting'"),
           (re.compile(r"\bstop \d+\b", re.I), "a stop number"),
           (re.compile(r"\bcommit [0-9a-f]{7,12}\b"), "a commit hash")]


def output_of(args):
    done = subprocess.run([NORMBENCH] + args.split(), cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("generated_docs: normbench %s: exit %d: %s" % (args, done.returncode, done.stderr.strip()))
    text = done.stdout.replace(NORMBENCH + " ", "normbench ").replace(
        os.path.relpath(NORMBENCH, ROOT) + " ", "normbench ")
    return "```text\n%s```\n" % text if "--help" in args.split() else text


def main(argv):
    write = "--write" in argv
    problems = []
    files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        name = os.path.relpath(path, ROOT)
        drifted = []

        def regenerate(match):
            made = output_of(match.group(2))
            if match.group(3) != made:
                drifted.append(match.group(2))
            return match.group(1) + made + match.group(4)

        updated = BLOCK.sub(regenerate, text)
        if write and updated != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(updated)
        elif not write:
            problems += ["%s: the output of `normbench %s` differs (scripts/generated_docs.py --write)"
                         % (name, args) for args in drifted]
        for number, line in enumerate(text.split("\n"), 1):
            for pattern, what in HISTORY:
                if pattern.search(line):
                    problems.append("%s:%d: %s: %s" % (name, number, what, line.strip()[:100]))
    # The exit codes docs/cli.md tabulates are those the program defines (app/util/errors.hpp).
    with open(os.path.join(ROOT, "app", "util", "errors.hpp"), encoding="utf-8") as f:
        defined = sorted(int(v) for v in re.findall(r"kExit\w+ = (\d+),", f.read()))
    with open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8") as f:
        documented = sorted(int(v) for v in re.findall(r"^\| (\d+) \|", f.read(), re.M))
    if documented != defined:
        problems.append("docs/cli.md: exit codes %s in its table, %s in app/util/errors.hpp"
                        % (documented, defined))
    # Code, tests and scripts too: the history is in kernels/NOTES.md alone.
    for folder in ("app", "kernels", "reference", "tests", "scripts", "python", "configs", "examples"):
        for path in glob.glob(os.path.join(ROOT, folder, "**", "*.*"), recursive=True):
            if path == os.path.abspath(__file__) or path.endswith(("NOTES.md", ".json", ".png")):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    for pattern, what in HISTORY:
                        if pattern.search(line):
                            problems.append("%s:%d: %s: %s" % (os.path.relpath(path, ROOT), number,
                                                                what, line.strip()[:100]))
    with open(files[0], encoding="utf-8") as f:
        lines = f.read().count("\n")
    if lines > README_MAX_LINES:
        problems.append("README.md: %d lines; at most %d (reference pages go in docs/)" % (lines, README_MAX_LINES))
    for p in problems:
        print("generated_docs: " + p)
    if write:
        print("generated_docs: blocks rewritten where they differed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
