#!/usr/bin/env bash
# bench/torchvision_bench.sh MODEL [BUILD_DIR]: torchvision's MODEL (alexnet or resnet18, seeded
# weights) at batch 1 on an emulated IPU-sized target (TARGET, default ipu-mk2) beside ONNX
# Runtime and PyTorch, in one run on this machine (issues 13 and 14): `tessera compile` time and
# peak memory, then one image's inference in native mode (the run report's wall time) at 1 and
# 2 threads beside ONNX Runtime (bench/ort_infer.js, npm onnxruntime-node, CPU) and PyTorch
# (bench/torch_infer.py) with the same thread counts: medians of RUNS (default 3) runs after a
# warm-up run (Tessera's in one process: record.sh's run_median), and
# Tessera's time as a multiple of each; the logits' largest difference from ONNX Runtime's.
# Tessera runs two executables: the convs and pools planned for the machine's time (the
# default) and for native mode's (`--plan host`); the goal is for the second.
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:?usage: bench/torchvision_bench.sh alexnet|resnet18 [BUILD_DIR]}
build=${2:-build} runs=${RUNS:-3} target=${TARGET:-ipu-mk2}
case $model in
  alexnet) export=examples/alexnet/export_alexnet.py name=AlexNet ;;
  resnet18) export=examples/resnet/export_resnet18.py name=ResNet-18 ;;
  *) echo "torchvision_bench.sh: unknown model '$model' (alexnet or resnet18)" >&2; exit 2 ;;
esac
tessera=$build/host/cli/tessera work=$build/${model}_bench
. bench/record.sh
mkdir -p "$work"
[ -f "$work/$model.onnx" ] || /usr/bin/python3 "$export" "$work" --batch 1 > /dev/null
for plan in machine host; do
  /usr/bin/time -f "%e %M" -o "$work/compile.time" "$tessera" compile "$work/$model.onnx" --target "$target" --batch 1 \
    --plan $plan -o "$work/${model}_$plan.tsx" > "$work/compile.log" 2>&1 || { cat "$work/compile.log"; exit 1; }
  read -r csecs ckb < "$work/compile.time"
  awk -v n="$name" -v t="$target" -v s="$csecs" -v kb="$ckb" -v p=$plan \
    'BEGIN { printf "%s compile for %s (batch 1, --plan %s): %.1f s, peak memory %.0f MB\n", n, t, p, s, kb / 1024 }'
done
printf '%-28s %8s %12s %12s %12s\n' "$name, 1 image" threads seconds "x ORT" "x PyTorch"
for t in 1 2; do
  for plan in machine host; do
    run_median "$runs" "$work/report.json" "$work/x.npy" on_cpus "$t" "$tessera" run "$work/${model}_$plan.tsx" --device emu-native \
      --threads "$t" --output logits="$work/tessera_logits.npy" > "$work/tessera_$plan.$t"
  done
  on_cpus "$t" node bench/ort_infer.js "$work/$model.onnx" "$work/x.npy" "$runs" "$t" "$work/ort_logits.npy" |
    sed -n 's/^ort: median \([0-9.]*\) .*/\1/p' > "$work/ort.$t"
  on_cpus "$t" /usr/bin/python3 bench/torch_infer.py "$work/$model.onnx" "$model" "$work/x.npy" "$runs" "$t" |
    sed -n 's/^torch: median \([0-9.]*\) .*/\1/p' > "$work/torch.$t"
  compare_plans "$name inference (1 image, $target)" "$t" "$work"
done
/usr/bin/python3 -c "
import numpy as np, sys
a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
a, b = a.reshape(-1)[:b.size], b.reshape(-1)  # Tessera's first run
print('largest logit difference, Tessera (--plan host) vs ONNX Runtime: %.3g' % np.abs(a.astype(np.float64) - b).max())" \
  "$work/tessera_logits.npy" "$work/ort_logits.npy"
