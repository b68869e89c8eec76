#!/usr/bin/env bash
# bench/alexnet_bench.sh [BUILD_DIR]: torchvision's AlexNet (seeded weights) at batch 1 on the
# emulated ipu-mk2 beside ONNX Runtime, in one run on this machine (issue 14's speed figure):
# `tessera compile` time and peak memory, then one image's inference in native mode (the run
# report's wall time) at 1 and 2 threads beside ONNX Runtime (bench/ort_infer.js, npm
# onnxruntime-node, CPU) with the same thread counts: medians of RUNS (default 3) runs, and
# Tessera's time as a multiple of ONNX Runtime's; the logits' largest difference.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build} runs=${RUNS:-3}
tessera=$build/host/cli/tessera work=$build/alexnet_bench
. bench/record.sh
mkdir -p "$work"
[ -f "$work/alexnet.onnx" ] || /usr/bin/python3 examples/alexnet/export_alexnet.py "$work" --batch 1 > /dev/null
/usr/bin/time -f "%e %M" -o "$work/compile.time" "$tessera" compile "$work/alexnet.onnx" --target ipu-mk2 --batch 1 \
  -o "$work/alexnet.tsx" > "$work/compile.log" 2>&1 || { cat "$work/compile.log"; exit 1; }
read -r csecs ckb < "$work/compile.time"
awk -v s="$csecs" -v kb="$ckb" 'BEGIN { printf "AlexNet compile for ipu-mk2 (batch 1): %.1f s, peak memory %.0f MB\n", s, kb / 1024 }'
printf '%-28s %8s %12s %12s\n' "AlexNet, 1 image" threads seconds "Tessera is"
for t in 1 2; do
  run_median "$runs" "$work/report.json" "$tessera" run "$work/alexnet.tsx" --device emu-native --threads "$t" \
    --input x="$work/x.npy" --output logits="$work/tessera_logits.npy" > "$work/tessera.$t"
  node bench/ort_infer.js "$work/alexnet.onnx" "$work/x.npy" "$runs" "$t" "$work/ort_logits.npy" |
    sed -n 's/^ort: median \([0-9.]*\) .*/\1/p' > "$work/ort.$t"
  ts=$(cat "$work/tessera.$t") os=$(cat "$work/ort.$t")
  awk -v t="$t" -v ts="$ts" -v os="$os" 'BEGIN { printf "%-28s %8s %12.4f\n%-28s %8s %12.4f %11.1fx\n", "tessera", t, ts, "ort", t, os, ts / os }'
  # Goal (issue 14): at most 1.5x ONNX Runtime's time.
  record "AlexNet inference (1 image, ipu-mk2)" "emu-native, $t thread(s)" s "$ts" "ONNX Runtime, $t thread(s)" "$os" time 0.667
done
/usr/bin/python3 -c "
import numpy as np, sys
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
print('largest logit difference, Tessera vs ONNX Runtime: %.3g' % np.abs(a.astype(np.float64) - b).max())" \
  "$work/tessera_logits.npy" "$work/ort_logits.npy"
