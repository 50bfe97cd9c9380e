#!/usr/bin/env bash
# Builds normbench with the `ci` preset (Release, warnings as errors; CMakePresets.json), checks
# that the C++ and CUDA files are formatted with .clang-format, and runs every test: the CPU
# tests (ctest --preset ci) and the GPU tests (ctest --preset ci-gpu), which skip with a message
# where there is no GPU. Prints a short summary: each step's result and time, the test counts
# with the commonest reasons for skipping, and each failure's name and first lines (through
# scripts/test_summary.py, or ctest's own lines without python3). Everything goes to
# build/test-log.txt, the summary also to build/test-summary.txt, and the tests' JUnit XML to
# build/test-results.xml (CPU) and build/test-results-gpu.xml (GPU). Exits non-zero if any step
# fails.
#
#   scripts/test.sh            (ctest --preset ci / --preset ci-gpu to run one label by hand)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
mkdir -p build
log=build/test-log.txt
summary=build/test-summary.txt
: > "$log"
: > "$summary"
started=$SECONDS
status=0

say() { echo "test: $*" | tee -a "$summary"; }
took() { local s=$((SECONDS - $1)); [ $s -ge 60 ] && echo "$((s / 60)) min $((s % 60)) s" || echo "$s s"; }

# logged COMMAND...: runs COMMAND with its output appended to the log, where it starts at line
# $logged_from (for the lines of a failure).
logged() {
  echo "=== $*" >> "$log"
  logged_from=$(($(wc -l < "$log") + 1))
  "$@" >> "$log" 2>&1
}

# step NAME COMMAND...: logged, and says how it went.
step() {
  local name=$1 began=$SECONDS rc=0
  shift
  logged "$@" || rc=$?
  if [ $rc -eq 0 ]; then
    say "$name: ok ($(took $began))"
  else
    say "$name: FAILED (exit $rc, $(took $began))"
    status=1
  fi
  return $rc
}

# The tree is formatted with clang-format 14 (Debian 12's); other versions format a few
# constructs differently, so they only warn.
# shellcheck disable=SC2317  # reached through `step`, which shellcheck does not follow
check_format() {
  if ! command -v clang-format > /dev/null; then
    echo "clang-format not installed; formatting not checked"
  elif clang-format --version | grep -q 'version 14\.'; then
    scripts/format.sh --check
  else
    scripts/format.sh --check || echo "formatting differs under $(clang-format --version); not a failure"
  fi
}

if ! step build env NORMBENCH_TEST_DEPS=1 scripts/bootstrap.sh --preset ci; then
  # The first compiler or CMake error, not the lines of the steps that went well before it.
  first_error=$(tail -n +"$logged_from" "$log" | sed -n '/^FAILED: \|CMake Error\|error:/,$p' | head -n 40)
  echo "${first_error:-$(tail -n 20 "$log")}" | sed 's/^/    /' | tee -a "$summary"
else
  step format check_format
  tail -n +"$logged_from" "$log" | grep -E '^  |not checked|not a failure' | head -n 20 |
    sed 's/^ */    /' | tee -a "$summary"

  # The tests: their counts and failures come from the JUnit XML that the presets have ctest write.
  rm -f build/test-results.xml build/test-results-gpu.xml
  logged ctest --preset ci -j"$(nproc)" || cpu_rc=$?
  logged ctest --preset ci-gpu -j"$(nproc)" || gpu_rc=$?
  if command -v python3 > /dev/null; then
    python3 scripts/test_summary.py "$log" "cpu tests=build/test-results.xml" \
      "gpu tests=build/test-results-gpu.xml" | tee -a "$summary"
  else  # ctest's own summary lines
    grep -E 'tests passed|Total Test time|\*\*\*(Failed|Timeout|Exception)' "$log" | tee -a "$summary"
  fi
  for run in "cpu tests:${cpu_rc:-0}" "gpu tests:${gpu_rc:-0}"; do
    [ "${run##*:}" -eq 0 ] && continue
    say "${run%:*}: ctest exited ${run##*:}"
    status=1
  done
fi

if [ $status -eq 0 ]; then
  say "all passed in $(took $started); full log: $log"
else
  say "FAILED in $(took $started); full log: $log"
fi
exit $status
