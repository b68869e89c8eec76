#!/usr/bin/env bash
# The cycle model's speed of torchvision models (issue 14): each MODEL:TARGET:BATCH case
# exported with seeded weights (examples/*/export_*.py), compiled for TARGET, one batch run on
# the emulator's ISS with its cycle model (`tessera run --device emu --report`), and the
# report read by bench/cycle_model_report.py: cycles, images/s at the target's clock, and the
# FPU utilisation of the compute phases (the ONNX model's multiply-accumulates over one FMA
# per tile per cycle).
#   bench/cycle_model.sh [BUILD_DIR]   (CASES: default "alexnet:ipu-mk2:1 alexnet:ipu-gc2:1
#   alexnet:alveo-u250:1 resnet18:ipu-mk2:1 resnet18:ipu-gc2:1"; AlexNet
#   takes about 1.5 minutes and 2 GB, ResNet-18 about 3; on alveo-u250 the weights stream)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-${BUILD_DIR:-build}}
cases=${CASES:-alexnet:ipu-mk2:1 alexnet:ipu-gc2:1 alexnet:alveo-u250:1 resnet18:ipu-mk2:1 resnet18:ipu-gc2:1}
tessera="$build/host/cli/tessera" me=cycle_model.sh
[ -x "$tessera" ] || { echo "$me: no $tessera (build first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-cycle-model.XXXXXX")
trap 'rm -rf "$work"' EXIT
. bench/record.sh

for c in $cases; do
  IFS=: read -r model target batch <<< "$c"
  case $model in
    alexnet) export=examples/alexnet/export_alexnet.py ;;
    resnet18) export=examples/resnet/export_resnet18.py ;;
    *) echo "$me: unknown model '$model' (alexnet or resnet18)" >&2; exit 2 ;;
  esac
  dir="$work/$model.$batch"
  [ -f "$dir/$model.onnx" ] || /usr/bin/python3 "$export" "$dir" --batch "$batch" --seed 0 > /dev/null
  echo "$model, batch $batch, $target, on the cycle model:"
  "$tessera" compile "$dir/$model.onnx" --target "$target" --batch "$batch" -o "$work/m.tsx" > "$work/compile.log" 2>&1 \
    || { tail -5 "$work/compile.log"; echo "$me: $c: the compile failed" >&2; exit 1; }
  /usr/bin/time -f "  simulated in %e s wall, peak %M KB" "$tessera" run "$work/m.tsx" --device emu --threads 2 --timeout-ms 1800000 \
    --input x="$dir/x.npy" --report "$work/report.json" > "$work/run.log" 2>&1 \
    || { tail -5 "$work/run.log"; echo "$me: $c: the run failed" >&2; exit 1; }
  tail -1 "$work/run.log"
  /usr/bin/python3 bench/cycle_model_report.py "$dir/$model.onnx" "$work/report.json" "arch/targets/$target.toml" \
    "$batch" | tee "$work/figures.txt"
  ips=$(sed -n 's/.* \([0-9.]*\) images\/s$/\1/p' "$work/figures.txt")
  record "$model inference (batch $batch, $target)" "cycle model" images/s "$ips" "" "" rate
done
