#!/usr/bin/env bash
# Training speed: the full MNIST model (784-256-128-10, batch 32) trained on the emulated
# `medium` machine in native mode with 1 and 2 threads, beside PyTorch on the same model and
# machine (1 and 2 threads), 250 steps (one epoch) each. Prints images per second.
#   bench/train_bench.sh [BUILD_DIR]        (STEPS: steps per run, a multiple of 25; default 250)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-${BUILD_DIR:-build}}
steps=${STEPS:-250}
tessera="$build/host/cli/tessera"
[ -x "$tessera" ] || { echo "train_bench.sh: no $tessera (build first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-train-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "training speed, 784-256-128-10, batch 32, $steps steps:"
/usr/bin/time -f "  compile mnist-train for medium: %e s wall, peak %M KB" \
  "$tessera" compile mnist-train --target medium -o "$work/train.tsx" > /dev/null 2> >(grep -E "compile mnist-train|error" >&2)
for threads in 1 2; do
  printf "  tessera, emu-native, %u thread(s): " "$threads"
  "$tessera" train "$work/train.tsx" --seed 0 --threads "$threads" --max-steps "$steps" 2>/dev/null | grep "^trained" \
    | sed 's/.*: \([0-9]*\) images\/s (device.*/\1 images\/s/'
done
for threads in 1 2; do
  printf "  PyTorch (CPU), %u thread(s):      " "$threads"
  /usr/bin/python3 examples/mnist/train_sgd_reference.py "$work/torch$threads" --seed 0 --threads "$threads" \
    --max-steps "$steps" 2>/dev/null | grep "^training" | sed 's/.*, \([0-9]*\) images\/s.*/\1 images\/s/'
done
