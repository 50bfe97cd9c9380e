#!/usr/bin/env bash
# The committed results of a GPU model, in one sitting on one machine: normbench on
# configs/kernelbench.json, PyTorch eager and torch.compile on the same config and inputs
# (python -m normbench_torch, same inputs and timing method), and the merged speedup report.
#
#   scripts/bootstrap.sh && scripts/gpu_results.sh [OUT_DIR]
#
# OUT_DIR defaults to results/<gpu model>, e.g. results/nvidia-h100-80gb-hbm3 (the folder
# scripts/gate.sh takes its baseline from). Writes kernelbench.json and .txt (normbench),
# torch-kernelbench.json and .txt, report.html and report.md. Exits non-zero if any step did.
set -uo pipefail
cd "$(dirname "$0")/.."
model=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 | head -1 | tr '[:upper:]' '[:lower:]' | tr ' ' '-')
out=${1:-results/$model}
mkdir -p "$out"
status=0
build/normbench run --config configs/kernelbench.json --out "$out/kernelbench.json" \
  > "$out/kernelbench.txt" 2>&1 || status=$?
PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} python3 -m normbench_torch --normbench build/normbench \
  --config configs/kernelbench.json \
  --out "$out/torch-kernelbench.json" > "$out/torch-kernelbench.txt" 2>&1 || status=$?
for format in html md; do
  build/normbench report "$out/kernelbench.json" "$out/torch-kernelbench.json" \
    --out "$out/report.$format" || status=$?
done
cat "$out/kernelbench.txt"
tail -12 "$out/torch-kernelbench.txt"
exit "$status"
