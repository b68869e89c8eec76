#!/usr/bin/env bash
# bench/onnx_bench.sh [BUILD_DIR]: ONNX models on Tessera beside ONNX Runtime and PyTorch,
# in one run on this machine. For LeNet-5 (the build's lenet_reference: PyTorch-trained,
# 2,000 test digits): `tessera compile` time and peak memory (for `medium`, batch 100 x 20
# transfers), then the 2,000 digits' inference time in native mode (`tessera run --device
# emu-native`, the run report's wall time) at 1 and 2 threads, beside ONNX Runtime
# (bench/ort_infer.js, npm onnxruntime-node, CPU) and PyTorch (bench/torch_infer.py) on the
# same batch of 2,000 with the same thread counts: medians of RUNS (default 5) runs after a
# warm-up run (Tessera's in one process: record.sh's run_median), and
# Tessera's time as a multiple of each. Tessera runs two executables: the convs and pools
# planned for the machine's time (the default) and for native mode's (`--plan host`); the
# goal is for the second. Also the largest logit difference between Tessera and ONNX Runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/record.sh
build=${1:-build} runs=${RUNS:-5}
tessera=$build/host/cli/tessera ref=$build/lenet_reference work=$build/onnx_bench
[ -f "$ref/lenet.onnx" ] || cmake --build "$build" --target lenet_reference
mkdir -p "$work"

for plan in machine host; do
  /usr/bin/time -f "%e %M" -o "$work/compile.time" "$tessera" compile "$ref/lenet.onnx" --target medium --batch 100 \
    --batches 20 --plan $plan -o "$work/lenet_$plan.tsx" > "$work/compile.log" 2>&1 || { cat "$work/compile.log"; exit 1; }
  read -r csecs ckb < "$work/compile.time"
  awk -v s="$csecs" -v kb="$ckb" -v p=$plan \
    'BEGIN { printf "LeNet-5 compile for medium (batch 100 x 20, --plan %s): %.2f s, peak memory %.0f MB\n", p, s, kb / 1024 }'
done

printf '%-28s %8s %12s %12s %12s %12s\n' "LeNet-5, 2,000 digits" threads "seconds" "images/s" "x ORT" "x PyTorch"
for t in 1 2; do
  for plan in machine host; do
    run_median "$runs" "$work/report.json" "$ref/test_x.npy" on_cpus "$t" "$tessera" run "$work/lenet_$plan.tsx" --device emu-native \
      --threads "$t" --output logits="$work/tessera_logits.npy" > "$work/tessera_$plan.$t"
  done
  on_cpus "$t" node bench/ort_infer.js "$ref/lenet.onnx" "$ref/test_x.npy" "$runs" "$t" "$work/ort_logits.npy" |
    sed -n 's/^ort: median \([0-9.]*\) .*/\1/p' > "$work/ort.$t"
  on_cpus "$t" /usr/bin/python3 bench/torch_infer.py "$ref/lenet.onnx" lenet "$ref/test_x.npy" "$runs" "$t" |
    sed -n 's/^torch: median \([0-9.]*\) .*/\1/p' > "$work/torch.$t"
  compare_plans "LeNet-5 inference (2,000 digits, batch 100 x 20)" "$t" "$work" 2000
done
/usr/bin/python3 -c "
import numpy as np, sys
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
a = a[:len(b)]  # Tessera's first run
print('largest logit difference, Tessera (--plan host) vs ONNX Runtime: %.3g' % np.abs(a.astype(np.float64) - b).max())" \
  "$work/tessera_logits.npy" "$work/ort_logits.npy"
