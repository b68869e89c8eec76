#!/usr/bin/env bash
# Training speed: the full MNIST model (784-256-128-10, batch 32) trained on the emulated
# `medium` machine in native mode with 1 and 2 threads, beside PyTorch on the same model and
# machine (1 and 2 threads), 250 steps (one epoch) each, the median of RUNS runs each.
# Prints images per second and Tessera's speed as a multiple of PyTorch's.
#   bench/train_bench.sh [BUILD_DIR]   (STEPS: steps per run, a multiple of 25, default 250;
#                                       RUNS: runs per figure, default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/record.sh
build=${1:-${BUILD_DIR:-build}}
steps=${STEPS:-250} runs=${RUNS:-3}
tessera="$build/host/cli/tessera"
[ -x "$tessera" ] || { echo "train_bench.sh: no $tessera (build first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-train-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "training speed, 784-256-128-10, batch 32, $steps steps, median of $runs runs:"
/usr/bin/time -f "  compile mnist-train for medium: %e s wall, peak %M KB" \
  "$tessera" compile mnist-train --target medium -o "$work/train.tsx" > /dev/null 2> >(grep -E "compile mnist-train|error" >&2)
for threads in 1 2; do
  ts=$(for i in $(seq "$runs"); do
    on_cpus "$threads" "$tessera" train "$work/train.tsx" --seed 0 --threads "$threads" --max-steps "$steps" 2>/dev/null | grep "^trained" \
      | sed 's/.*: \([0-9]*\) images\/s (device.*/\1/'
  done | median)
  pt=$(for i in $(seq "$runs"); do
    on_cpus "$threads" /usr/bin/python3 examples/mnist/train_sgd_reference.py "$work/torch$threads" --seed 0 --threads "$threads" \
      --max-steps "$steps" 2>/dev/null | grep "^training" | sed 's/.*, \([0-9]*\) images\/s.*/\1/'
  done | median)
  printf "  %u thread(s): tessera emu-native %6s images/s, PyTorch (CPU) %6s images/s: %sx\n" "$threads" "${ts:-n/a}" \
    "${pt:-n/a}" "$(awk -v a="${ts:-0}" -v b="${pt:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else printf "n/a" }')"
  record "MNIST training (784-256-128-10, batch 32)" "emu-native, $threads thread(s)" images/s "$ts" \
    "PyTorch, $threads thread(s)" "$pt" rate 1.0
done
