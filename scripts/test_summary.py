#!/usr/bin/env python3
"""Summarises ctest runs for scripts/test.sh from the JUnit XML that ctest writes
(--output-junit): one line of counts and time per run, the commonest reasons for skipping (a
test that skips for want of NumPy should not pass unseen), then each failure's name, how it
ended and the first lines of its output, without Google Test's banner lines.

    scripts/test_summary.py CTEST_LOG NAME=JUNIT_XML...

CTEST_LOG is ctest's console output, read only for how each failure ended (Failed, Timeout,
SEGFAULT...), which the JUnit file does not say. Exits 0; the caller judges by ctest's exit code.
"""

import collections
import re
import sys
import xml.etree.ElementTree as ET

FIRST_LINES = 6
SKIP_REASONS = 3
# Google Test's lines that every test prints; the failure's own lines follow them.
BANNER = re.compile(r"^(Running main\(\) from |Note: Google Test filter = |\[ *(=+|-+|RUN) *\])")


def endings(log_path):
    """Test name -> how it ended, from ctest's result lines ('... ***Timeout   1.03 sec')."""
    try:
        with open(log_path, errors="replace") as f:
            text = f.read()
    except OSError:
        return {}
    return dict(re.findall(r"Test +#\d+: (\S+) \.*\s*\*{3}(\D+?)\s+[\d.]+ sec", text))


def own_lines(output):
    return [line for line in output.splitlines() if line.strip() and not BANNER.match(line)]


def skip_reason(case):
    """Google Test's message follows its "file:line: Skipped" line; a script's is its first."""
    lines = own_lines(case.findtext("system-out") or "")
    for i, line in enumerate(lines[:-1]):
        if line.endswith(": Skipped"):
            return lines[i + 1]
    if lines:
        return lines[0]
    skipped = case.find("skipped")
    return skipped.get("message", "") if skipped is not None else case.get("status")


def summarise(label, junit_path, ended):
    try:
        suite = ET.parse(junit_path).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"test: {label}: no results ({junit_path}: {e})")
        return
    cases = suite.findall("testcase")
    failed = [c for c in cases if c.get("status") == "fail"]
    skipped = [c for c in cases if c.get("status") in ("notrun", "disabled")]
    passed = len(cases) - len(failed) - len(skipped)
    print(f"test: {label}: {passed} passed, {len(failed)} failed, {len(skipped)} skipped "
          f"of {len(cases)} in {float(suite.get('time', 0)):.0f} s")
    reasons = collections.Counter(skip_reason(c) for c in skipped)
    for reason, count in reasons.most_common(SKIP_REASONS):
        reason = re.sub(r"^skipped:\s*", "", reason, flags=re.I)
        print(f"    {count} skipped: {reason[:160]}")
    if len(reasons) > SKIP_REASONS:
        print(f"    ... and {len(reasons) - SKIP_REASONS} other reasons (see the log)")
    for case in failed:
        name = case.get("name")
        shown = name.split("  # ")[0]  # without Google Test's "  # GetParam() = ..."
        print(f"  FAILED {shown} ({ended.get(name, 'Failed')}, {float(case.get('time', 0)):.1f} s)")
        lines = own_lines(case.findtext("system-out") or "")
        for line in lines[:FIRST_LINES]:
            print(f"    {line[:200]}")
        if len(lines) > FIRST_LINES:
            print(f"    ... ({len(lines) - FIRST_LINES} more lines in the log)")
        elif not lines:
            print("    (no output)")


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    ended = endings(argv[1])
    for run in argv[2:]:
        label, _, path = run.partition("=")
        summarise(label, path, ended)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
