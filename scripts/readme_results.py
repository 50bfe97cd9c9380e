#!/usr/bin/env python3
"""The README's result tables are normbench's own summary of the committed reports: between a
line `<!-- summary: FILE... -->` and the line `<!-- end summary -->` stands the output of
`normbench report FILE... --format summary --out -` (paths from the repository root). Without
--write, exits 1 naming each table that differs from what normbench makes of its files (the
README drifted from the results, or the results changed); with --write, rewrites them.

    NORMBENCH=build/normbench scripts/readme_results.py [--write] [README]
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NORMBENCH = os.environ.get("NORMBENCH", os.path.join(ROOT, "build", "normbench"))
BLOCK = re.compile(r"(<!-- summary: ([^>]*?) -->\n)(.*?)(<!-- end summary -->)", re.S)


def summary(files):
    done = subprocess.run([NORMBENCH, "report", *files, "--format", "summary", "--out", "-"],
                          cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("readme_results: normbench report %s: %s" % (" ".join(files), done.stderr.strip()))
    return done.stdout


def main(argv):
    write = "--write" in argv
    paths = [a for a in argv if a != "--write"]
    readme = paths[0] if paths else os.path.join(ROOT, "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    drifted = []

    def regenerate(match):
        files = match.group(2).split()
        table = summary(files)
        if match.group(3) != table:
            drifted.append(" ".join(files))
        return match.group(1) + table + match.group(4)

    updated, count = BLOCK.subn(regenerate, text)
    if count == 0:
        sys.exit("readme_results: %s has no <!-- summary: ... --> table" % readme)
    if write:
        if updated != text:
            with open(readme, "w", encoding="utf-8") as f:
                f.write(updated)
        print("readme_results: %d tables, %d rewritten" % (count, len(drifted)))
        return 0
    for files in drifted:
        print("readme_results: the table of %s is not what normbench makes of it "
              "(scripts/readme_results.py --write)" % files)
    return 1 if drifted else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
