#!/usr/bin/env bash
# The package as a user gets it: installs normbench from BUILD_DIR into a temporary prefix,
# builds examples/plugin against it with find_package(normbench), and lists the plugin's
# kernel with the installed normbench. With --gpu it also runs the plugin next to the built-in
# kernels on configs/smoke.json (exit 77, skipped, without a GPU).
#
#   tests/plugin/install_and_build_example.sh BUILD_DIR SOURCE_DIR [--gpu]
set -euo pipefail
build=$1 source=$2 mode=${3:-}
if [ "$mode" = --gpu ] && ! nvidia-smi > /dev/null 2>&1; then
  echo "skipped: no GPU"; exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > /dev/null
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S "$source/examples/plugin" -B "$work/plugin" "${generator[@]}" \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/plugin" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
plugin="$work/plugin/my_layer_norm.so"
listed=$("$work/prefix/bin/normbench" list --plugin "$plugin")
echo "$listed" | grep -F "layer_norm.example_block_per_row" | grep -F "[plugin $plugin]"
if [ "$mode" = --gpu ]; then
  "$work/prefix/bin/normbench" run --config "$source/configs/smoke.json" --plugin "$plugin" \
    --out "$work/smoke.json" > "$work/run.txt" 2>&1 || { cat "$work/run.txt"; exit 1; }
  grep -E "layer_norm.example_block_per_row +passed" "$work/run.txt"
  ! grep -E "example_block_per_row +(failed|error|not_run)" "$work/run.txt"
fi
echo "plugin package: ok"
