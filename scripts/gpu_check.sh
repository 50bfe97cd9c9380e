#!/usr/bin/env bash
# Build, test and benchmark normbench on a GPU machine in one go. GPU time is scarce: this
# puts everything that belongs together into one call and keeps logs and reports as files.
#
#   scripts/gpu_check.sh [STEP...]    steps: build gpu-tests smoke edge formats bench llm
#                                     diffusion adversarial plugin submissions sanitize
#                                     (default: all, in that order)
# BUILD names the build folder (default build-gpu); without the build step it must hold a build.
# Outputs go to $OUT (default ./gpu-out): build.log, gpu-tests.log, device-math-tests.log,
# <config>.json reports and .txt tables, sanitizer logs. A short summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
BUILD=${BUILD:-build-gpu}
mkdir -p "$OUT"
steps=("$@")
[ ${#steps[@]} -eq 0 ] &&
  steps=(build gpu-tests smoke edge formats bench llm diffusion adversarial plugin submissions sanitize)
summary=()

run_config() {  # name, extra args...
  local name=$1; shift
  local start=$SECONDS
  "$BUILD/normbench" run --config "configs/$name.json" --out "$OUT/$name.json" "$@" \
    > "$OUT/$name.txt" 2>&1
  local rc=$?
  summary+=("run $name: exit $rc, $((SECONDS - start)) s")
}

for step in "${steps[@]}"; do
  case $step in
    build)
      nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
      if cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$OUT/build.log" 2>&1 &&
         cmake --build "$BUILD" -j"$(nproc)" >> "$OUT/build.log" 2>&1; then
        summary+=("build: ok")
      else
        tail -40 "$OUT/build.log"; echo "build failed"; exit 1
      fi ;;
    gpu-tests)
      # One process for all GPU tests (ctest would start a CUDA context per test).
      "$BUILD/tests/normbench_gpu_tests" > "$OUT/gpu-tests.log" 2>&1
      summary+=("gpu tests: exit $? ($(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests.log" | tr '\n' ' '))")
      # Device helpers measured on the device (their own binary: they use CUDA in-process).
      "$BUILD/tests/normbench_device_math_gpu_tests" > "$OUT/device-math-tests.log" 2>&1
      summary+=("device math tests: exit $? ($(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/device-math-tests.log" | tr '\n' ' '))") ;;
    smoke) run_config smoke ;;
    edge) run_config edge ;;
    formats) run_config smoke_formats; run_config edge_formats; run_config smoke_channels
             run_config smoke_group_norm_silu; run_config smoke_backward ;;
    bench) run_config kernelbench; run_config kernelbench_extra ;;
    llm) run_config llm ;;
    diffusion) run_config diffusion ;;
    plugin)
      # examples/plugin built against an installed normbench, run next to the built-in kernels.
      ctest --test-dir "$BUILD" -R plugin_package_on_gpu --output-on-failure > "$OUT/plugin.log" 2>&1
      summary+=("plugin example on the GPU: exit $?") ;;
    submissions)
      # tests/kernelbench: Python candidates in normbench's worker: KernelBench-style
      # submissions (right, wrong, cheating, crashing, hanging), --torch and --python on the
      # low-precision and channels-last formats.
      NORMBENCH="$BUILD/normbench" python3 tests/kernelbench/check_verdicts.py \
        "$OUT/submissions.json" > "$OUT/submissions.txt" 2>&1
      summary+=("kernelbench submissions: exit $? ($(tail -1 "$OUT/submissions.txt"))") ;;
    adversarial)
      # The deliberately wrong kernels of tests/adversarial in one run (exit 1 expected).
      "$BUILD/tests/normbench_adversarial" run --config tests/adversarial/adversarial.json \
        --out "$OUT/adversarial.json" > "$OUT/adversarial.txt" 2>&1
      summary+=("adversarial run: exit $? (1 expected)") ;;
    sanitize)
      # memcheck: every kernel. racecheck: every kernel but the lookahead GroupNorm kernel,
      # whose hand-offs between data warps and exchange warp go through named barriers
      # (bar.arrive / bar.sync) that racecheck reports as hazards even with two groups, where
      # no buffer is ever reused (kernels/NOTES.md); synccheck checks its barriers instead.
      for check in "memcheck" "racecheck --kernel-name-exclude kns=lookahead_groups_kernel" \
                   "synccheck --kernel-name kns=lookahead_groups_kernel"; do
        read -r tool filter <<< "$check"
        # shellcheck disable=SC2086  # $filter is empty or two words
        for config in smoke smoke_formats smoke_channels smoke_group_norm_silu smoke_backward; do
          compute-sanitizer --tool "$tool" $filter --error-exitcode 99 "$BUILD/normbench" run \
            --config "configs/$config.json" --no-timing --trials 1 \
            --out "$OUT/sanitize-$tool-$config.json" > "$OUT/sanitize-$tool-$config.log" 2>&1
          summary+=("compute-sanitizer $tool on $config: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitize-$tool-$config.log" | tail -1))")
        done
      done ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
done

for f in "$OUT"/{kernelbench,kernelbench_extra,smoke,edge,smoke_formats,edge_formats,smoke_channels,smoke_group_norm_silu,smoke_backward,llm,diffusion}.txt; do
  [ -f "$f" ] && { echo "== $f"; grep -vE '^\s*$' "$f" | grep -E 'failed|error|ABORT|copy|device' | head -20; }
done
[ -f "$OUT/kernelbench.txt" ] && cat "$OUT/kernelbench.txt"
printf '%s\n' "${summary[@]}"
