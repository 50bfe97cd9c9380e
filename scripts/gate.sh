#!/usr/bin/env bash
# Performance gate: run normbench on this machine's GPU and compare the result with the
# committed baseline report for the same GPU model; exit non-zero on a regression.
#
#   scripts/gate.sh [--config FILE] [--baseline-dir DIR | --baseline FILE] [--normbench BIN]
#                   [--out-dir DIR] [--compare-option OPTION]... [-- RUN_OPTIONS...]
#
#   Paths given as options are taken as given; the defaults are relative to the repository.
#   --config FILE          config to run (default configs/kernelbench.json)
#   --baseline-dir DIR     folder of committed baselines for this GPU model (default
#                          results/<gpu-model-dir>: the GPU name from nvidia-smi, lower-case,
#                          spaces -> '-', e.g. "NVIDIA H100 80GB HBM3" -> results/nvidia-h100-80gb-hbm3);
#                          the baseline is DIR/<config file name>, e.g. .../kernelbench.json
#   --baseline FILE        use this baseline report instead
#   --normbench BIN        the normbench binary (default $NORMBENCH, else build/normbench)
#   --out-dir DIR          where outputs go (default gate-out)
#   --compare-option OPT   passed to `normbench compare` (repeatable), e.g.
#                          --compare-option --strict --compare-option --max-slowdown=0.08
#   -- RUN_OPTIONS         passed to `normbench run`, e.g. -- --device 1 --problem A_layer_norm
#                          (with --problem/--kernel filters, add --compare-option --allow-missing)
#
# Outputs in the out dir: candidate.json (this run's report), run.txt (its table), compare.md
# (Markdown for a pull-request comment; also printed, and appended to $GITHUB_STEP_SUMMARY when
# set) and compare.json.
#
# Exit code: that of `normbench compare` (0 no regression, 1 a regression, 2 refused or bad
# report, 4 an untested slowdown (too few samples, or a throttled GPU), nothing compared, or
# --strict and some verdict inconclusive); 2 for bad usage or when there is no baseline
# for this GPU model (the message says how to make one); the exit code of `normbench run` when
# it produced no usable report (2 bad config, 3 CUDA error or no GPU). A kernel that fails
# verification in this run is a regression when it passed in the baseline (compare: failed_now).
#
# To make a baseline: run the gate once, review gate-out/candidate.json and commit it as
# results/<gpu-model-dir>/<config file name>.
#
# .github/workflows/gpu-gate.yml runs it on a self-hosted GPU runner, for pushes to main and for
# pull requests from this repository.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd) || exit 2  # defaults are relative to the repository

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "gate: $*" >&2; exit 2; }

config=$root/configs/kernelbench.json
baseline_dir=""
baseline=""
normbench=${NORMBENCH:-$root/build/normbench}
out_dir=gate-out
compare_options=()
run_options=()
while [ $# -gt 0 ]; do
  case $1 in
    --config) [ $# -ge 2 ] || die "--config needs a file"; config=$2; shift 2 ;;
    --baseline-dir) [ $# -ge 2 ] || die "--baseline-dir needs a folder"; baseline_dir=$2; shift 2 ;;
    --baseline) [ $# -ge 2 ] || die "--baseline needs a file"; baseline=$2; shift 2 ;;
    --normbench) [ $# -ge 2 ] || die "--normbench needs a path"; normbench=$2; shift 2 ;;
    --out-dir) [ $# -ge 2 ] || die "--out-dir needs a folder"; out_dir=$2; shift 2 ;;
    --compare-option) [ $# -ge 2 ] || die "--compare-option needs a value"; compare_options+=("$2"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; run_options=("$@"); break ;;
    *) die "unknown option '$1' (options for normbench run go after --; see --help)" ;;
  esac
done
[ -f "$config" ] || die "config '$config' not found"
[ -x "$normbench" ] || die "normbench binary '$normbench' not found (build it, or pass --normbench)"

# The GPU that `normbench run` will use: --device N among the run options, else 0.
device=0
for ((i = 0; i < ${#run_options[@]}; i++)); do
  case ${run_options[i]} in
    --device) device=${run_options[i + 1]:-0} ;;
    --device=*) device=${run_options[i]#--device=} ;;
  esac
done

if [ -z "$baseline" ]; then
  if [ -z "$baseline_dir" ]; then
    gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader -i "$device" 2>/dev/null | head -n 1)
    gpu_name=$(echo "$gpu_name" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
    [ -n "$gpu_name" ] || die "cannot read the name of GPU $device from nvidia-smi (is there a GPU?)"
    baseline_dir=$root/results/$(echo "$gpu_name" | tr '[:upper:]' '[:lower:]' | tr ' ' '-')
    echo "gate: GPU $device is \"$gpu_name\"; baselines in $baseline_dir"
  fi
  baseline=$baseline_dir/$(basename "$config")
fi
[ -f "$baseline" ] || echo "gate: no baseline report '$baseline'; running anyway to make one" >&2

mkdir -p "$out_dir" || die "cannot create '$out_dir'"
candidate=$out_dir/candidate.json
rm -f "$candidate" "$out_dir/compare.md" "$out_dir/compare.json"
echo "gate: $normbench run --config $config --out $candidate ${run_options[*]}"
"$normbench" run --config "$config" --out "$candidate" ${run_options[@]+"${run_options[@]}"} 2>&1 | tee "$out_dir/run.txt"
run_rc=${PIPESTATUS[0]}
if [ "$run_rc" -ne 0 ] && [ "$run_rc" -ne 1 ] || [ ! -f "$candidate" ]; then
  echo "gate: normbench run failed (exit $run_rc) without a usable report; see $out_dir/run.txt" >&2
  [ "$run_rc" -ne 0 ] && exit "$run_rc"
  exit 3
fi
[ "$run_rc" -eq 1 ] && echo "gate: some kernels failed verification in this run (see above)" >&2
if [ ! -f "$baseline" ]; then
  echo "gate: no baseline report '$baseline' for this GPU model and config." >&2
  echo "gate: to make this run the baseline, review $candidate and commit it as $baseline" >&2
  exit 2
fi

"$normbench" compare "$baseline" "$candidate" --format json ${compare_options[@]+"${compare_options[@]}"} \
  > "$out_dir/compare.json"
"$normbench" compare "$baseline" "$candidate" --format markdown ${compare_options[@]+"${compare_options[@]}"} \
  > "$out_dir/compare.md"
compare_rc=$?
cat "$out_dir/compare.md"
[ -n "${GITHUB_STEP_SUMMARY:-}" ] && cat "$out_dir/compare.md" >> "$GITHUB_STEP_SUMMARY"
case $compare_rc in
  0) echo "gate: no regression against $baseline" ;;
  1) echo "gate: REGRESSION against $baseline" >&2 ;;
  4) echo "gate: undecided: a slowdown too few samples could show, or inconclusive verdicts under --strict" >&2 ;;
  *) echo "gate: normbench compare failed (exit $compare_rc)" >&2 ;;
esac
exit "$compare_rc"
