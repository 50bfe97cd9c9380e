#!/usr/bin/env bash
# Profiles one launch of one kernel with Nsight Compute and prints the sections that explain
# a memory-bound kernel's time: throughput, memory traffic, occupancy, warp stall reasons and
# the source lines where warps stall. Clocks are left alone (--clock-control none). The
# harness's own kernels (guards, fingerprints, the L2 eviction, the latency floor) are skipped.
#
#   scripts/profile_kernel.sh NORMBENCH KERNEL_ID PROBLEM_ID [CONFIG] > report.txt
set -euo pipefail
normbench=$1 kernel=$2 problem=$3 config=${4:-configs/profile.json}
out=$(mktemp -d)
ncu --clock-control none --launch-count 1 --kernel-name-base demangled \
    --kernel-name "regex:^(?!.*(fingerprint|read_all|discard_all|fill_guard|check_guard|check_slack|copy_lines|empty_kernel|hold_kernel|swap_kernel)).*" \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
    --section LaunchStats --section WarpStateStats --section SchedulerStats --section SourceCounters \
    -o "$out/profile" "$normbench" run --config "$config" --problem "$problem" --kernel "$kernel" \
    --no-timing --trials 1 --out "$out/report.json" > "$out/ncu.log" 2>&1 || { cat "$out/ncu.log"; exit 1; }
ncu --import "$out/profile.ncu-rep" --page details --print-details all 2>&1 |
  grep -vE '^\s*-+\s*$' | cut -c1-160
