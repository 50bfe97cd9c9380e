#!/usr/bin/env bash
# The committed results of a GPU model, in one go on one machine: for each config, one
# normbench run of its kernels with PyTorch eager and torch.compile (--torch) on the same
# inputs in the same harness, and its speedup report.
#
#   scripts/bootstrap.sh && scripts/gpu_results.sh [CONFIG...]
#
# CONFIG names files of configs/ (default: kernelbench llm diffusion). OUT_DIR (default
# results/<gpu model>, e.g. results/nvidia-h100-80gb-hbm3, the folder scripts/gate.sh takes its
# baselines from) receives <config>.json and .txt, report-<config>.html and .md. NORMBENCH names
# the binary (default build/normbench); NORMBENCH_PYTHON the Python with PyTorch (default
# python3). Exits non-zero if any step did.
set -uo pipefail
cd "$(dirname "$0")/.."
model=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 | head -1 | tr '[:upper:]' '[:lower:]' | tr ' ' '-')
out=${OUT_DIR:-results/$model}
normbench=${NORMBENCH:-build/normbench}
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=(kernelbench llm diffusion)
mkdir -p "$out"
status=0
for config in "${configs[@]}"; do
  start=$SECONDS
  "$normbench" run --config "configs/$config.json" --torch --out "$out/$config.json" \
    > "$out/$config.txt" 2>&1 || status=$?
  for format in html md; do
    "$normbench" report "$out/$config.json" --out "$out/report-$config.$format" || status=$?
  done
  echo "== $config ($((SECONDS - start)) s)"
  cat "$out/$config.txt"
done
exit "$status"
