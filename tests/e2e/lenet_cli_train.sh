#!/usr/bin/env bash
# tessera compile lenet.onnx --train and tessera train: 50 steps on `medium` from PyTorch's
# weights; the printed test accuracy must be at least 90%.
# Usage: lenet_cli_train.sh TESSERA REFERENCE_DIR WORK_DIR
set -euo pipefail
tessera=$1 ref=$2 work=$3
mkdir -p "$work"
source "$(dirname "$0")/work_dir.sh" && work_dir_keep_small "$work"
"$tessera" compile "$ref/lenet.onnx" --train --target medium --batch 32 --steps-per-sync 25 --infer-batch 100 \
  --epochs 1 -o "$work/lenet-train.tsx"
"$tessera" train "$work/lenet-train.tsx" --seed 3 --epochs 1 --max-steps 50 | tee "$work/out.txt"
acc=$(sed -n 's/.*accuracy \([0-9.]*\)%.*/\1/p' "$work/out.txt")
[ -n "$acc" ] || { echo "FAIL: no accuracy printed"; exit 1; }
awk -v a="$acc" 'BEGIN { if (a + 0 < 90) { print "FAIL: accuracy " a "% < 90%"; exit 1 } print "accuracy " a "% >= 90%" }'
