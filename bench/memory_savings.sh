#!/usr/bin/env bash
# What each of the compiler's memory savings saves on a training graph: AlexNet's training
# step (torchvision 0.14, seeded, batch BATCH, exported by examples/alexnet/alexnet_train_step.py)
# compiled for TARGET at one fixed memory proportion, once with every saving on (the default),
# once with each turned off (--no-in-place, --no-early-updates, --no-liveness), and once with
# the pools recomputed for their gradients (--recompute max_pool2d). Prints per configuration
# whether it fits, the fullest tile and the median tile (total bytes planned, and of that the
# tensors' bytes), and the compile's time and peak memory. A configuration that does not fit
# still prints its per-tile figures (the compiler plans every tile before it refuses).
#   bench/memory_savings.sh [BUILD_DIR]   (TARGET default ipu-mk2, BATCH 4, PROPORTION 0.25;
#                                          about 6 minutes and 3.5 GB on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-${BUILD_DIR:-build}}
target=${TARGET:-ipu-mk2} batch=${BATCH:-4} proportion=${PROPORTION:-0.25}
tessera="$build/host/cli/tessera"
me=memory_savings.sh
[ -x "$tessera" ] || { echo "$me: no $tessera (build first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-memory-savings.XXXXXX")
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 examples/alexnet/alexnet_train_step.py export "$work" --batch "$batch" --seed 0 > /dev/null \
  || { echo "$me: exporting AlexNet's training step failed" >&2; exit 1; }
echo "AlexNet training step, batch $batch, $target, memory proportion $proportion (bytes per tile):"
printf "  %-26s %-5s %10s %10s %10s %10s %8s %8s\n" configuration fits "max total" "max tens." "med total" \
  "med tens." "compile" "peak"
row() {  # row NAME OPTIONS...
  local name=$1 log="$work/compile.log" fits=yes
  shift
  /usr/bin/time -f "time %e %M" "$tessera" compile "$work/alexnet_train.onnx" --train --target "$target" \
    --batch "$batch" --steps-per-sync 1 --infer-batch 1 --epochs 1 --train-size $((batch * 100)) --lr 0.01 \
    --momentum 0.9 --memory-proportion "$proportion" "$@" -o "$work/train.tsx" > "$log" 2>&1 || fits=no
  # The table's rows: "  tensors  MIN  MEDIAN  MAX" and "  total  MIN  MEDIAN  MAX".
  read -r _ tmed tmax < <(awk '$1 == "tensors" { print $2, $3, $4 }' "$log" | tail -1)
  read -r _ med max < <(awk '$1 == "total" { print $2, $3, $4 }' "$log" | tail -1)
  read -r secs kb < <(awk '$1 == "time" { print $2, $3 }' "$log")
  [ -n "${max:-}" ] || { echo "$me: $name: no memory table; the compile said:" >&2; tail -5 "$log" >&2; return 1; }
  printf "  %-26s %-5s %10s %10s %10s %10s %7ss %6s MB\n" "$name" "$fits" "$max" "$tmax" "$med" "$tmed" "$secs" \
    "$((kb / 1024))"
}
row "all savings (default)"
row "--no-in-place" --no-in-place
row "--no-early-updates" --no-early-updates
row "--no-liveness" --no-liveness
row "--recompute max_pool2d" --recompute max_pool2d
