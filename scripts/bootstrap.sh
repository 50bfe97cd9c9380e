#!/usr/bin/env bash
# Sets up a fresh machine and builds normbench with a CMake preset (CMakePresets.json): by
# default `release`, into ./build (Release, Ninja).
# The CUDA toolkit (nvcc) must be there. Libraries come from Debian/Ubuntu packages, installed
# with apt only when CMake cannot find them (the GPU machine has them and no network). With
# NORMBENCH_TEST_DEPS=1 it also installs what some tests use (numpy, jsonschema, chromium),
# best effort: those tests skip with a message without them. Safe to run again.
#
#   scripts/bootstrap.sh [--preset NAME] [extra cmake options...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=release
if [ "${1:-}" = --preset ]; then
  [ $# -ge 2 ] || { echo "bootstrap: --preset needs a name (see CMakePresets.json)" >&2; exit 2; }
  preset=$2
  shift 2
fi

install_missing() {  # packages... ; returns non-zero if apt cannot install them
  local missing=()
  for p in "$@"; do dpkg -s "$p" > /dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get > /dev/null || return 1
  # apt needs root: as root directly, otherwise through sudo (which may ask for a password).
  local as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo > /dev/null ||
      { echo "bootstrap: installing ${missing[*]} needs root, and sudo is not there" >&2; return 1; }
    as_root=(sudo)
  fi
  echo "bootstrap: installing ${missing[*]}"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
}

# CMakePresets.json (version 6) needs CMake 3.25; older distributions (Ubuntu 22.04: 3.22) ship
# an older one, which apt cannot replace.
check_cmake_version() {
  local version
  version=$(cmake --version | head -1 | awk '{print $3}')
  if ! printf '3.25\n%s\n' "$version" | sort -V -C; then
    echo "bootstrap: CMake $version is too old: normbench's presets need 3.25 or newer" \
      "(for example \`pip install cmake\`, or Kitware's apt repository)" >&2
    exit 1
  fi
}

if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
command -v nvcc > /dev/null || { echo "bootstrap: nvcc (the CUDA toolkit) not found" >&2; exit 1; }

if [ "${NORMBENCH_TEST_DEPS:-0}" = 1 ]; then
  install_missing python3 python3-numpy python3-jsonschema python3-pip python3-setuptools \
    python3-wheel chromium clang-format ||
    echo "bootstrap: could not install the optional test tools; those tests will skip" >&2
fi

configure() { cmake --preset "$preset" "$@"; }
if ! command -v cmake > /dev/null || ! command -v ninja > /dev/null || ! configure "$@" > /dev/null 2>&1; then
  install_missing cmake ninja-build g++ libcli11-dev libfmt-dev nlohmann-json3-dev \
    libeigen3-dev libgtest-dev || { echo "bootstrap: cannot install the build dependencies" >&2; exit 1; }
fi
check_cmake_version
configure "$@"
cmake --build --preset "$preset" -j"$(nproc)"
