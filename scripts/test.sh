#!/usr/bin/env bash
# Builds normbench and runs every test: the CPU tests, and the GPU tests (label gpu), which
# skip with a message where there is no GPU. Prints ctest's summary; exits non-zero on failure.
#
#   scripts/test.sh            (ctest -L cpu / -L gpu to run one label by hand)
set -euo pipefail
cd "$(dirname "$0")/.."
NORMBENCH_TEST_DEPS=1 scripts/bootstrap.sh -DNORMBENCH_WERROR=ON
ctest --test-dir build --output-on-failure -j"$(nproc)"
