#!/usr/bin/env bash
# One AlexNet training step on the device against PyTorch: torchvision 0.14's AlexNet (seeded
# weights, nothing downloaded, Dropout the identity), exported with BATCH seeded 224x224
# images and labels by examples/alexnet/alexnet_train_step.py, compiled with --train for
# TARGET (forward, backward, SGD with momentum 0.9 at lr LR: the schedule's first step is
# lr0), one step run on emu-native by `tessera run --program train,infer`, and compared with
# one torch.optim.SGD(lr, momentum=0.9) step from the same weights and batch: each image's loss
# within 1e-5 relative, every updated weight within 1e-5 absolute, and the inference program's
# logits on one more image after the step within 1e-6 of the stepped PyTorch model's. Weights
# a target keeps in device memory (docs/weight-streaming.md, "Training") are read back from
# there like the others (`--output NAME=FILE` of a device parameter).
#   alexnet_train_step.sh TESSERA SOURCE_DIR WORK_DIR [TARGET [BATCH]]
#   (TARGET default ipu-mk2, BATCH 4; TESSERA_SEED: the weights', images' and labels' seed,
#   default 0; LR default 0.01)
# The run may take a minute per superstep on a loaded machine: --timeout-ms is 15 minutes.
set -euo pipefail
tessera=$1 src=$2 work=$3 target=${4:-ipu-mk2} batch=${5:-4}
seed=${TESSERA_SEED:-0} lr=${LR:-0.01}
py=/usr/bin/python3
me=alexnet_train_step.sh
fail() { echo "$me: FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/device"
source "$(dirname "$0")/work_dir.sh" && work_dir_keep_small "$work"
echo "$me: AlexNet, one SGD step at batch $batch on $target, lr $lr, momentum 0.9, seed $seed (TESSERA_SEED), files in $work"

$py "$src/examples/alexnet/alexnet_train_step.py" export "$work" --batch "$batch" --seed "$seed" --lr "$lr" \
  || fail "exporting AlexNet and the PyTorch step"
/usr/bin/time -f "$me: compile took %e s, %M KB" \
  "$tessera" compile "$work/alexnet_train.onnx" --train --target "$target" --batch "$batch" --steps-per-sync 1 \
  --infer-batch 1 --epochs 1 --train-size $((batch * 100)) --lr "$lr" --momentum 0.9 -o "$work/train.tsx" \
  > "$work/compile.log" 2>&1 || { cat "$work/compile.log"; fail "tessera compile --train"; }
grep -E "graph|fullest|wrote" "$work/compile.log" || true
outs=()
while read -r p; do outs+=("$p=$work/device/$p.f32"); done < "$work/params.txt"
/usr/bin/time -f "$me: run took %e s, %M KB" \
  "$tessera" run "$work/train.tsx" --program train,infer --device emu-native --threads 2 --timeout-ms 900000 \
  --input x="$work/x.npy" \
  --input labels="$work/labels.npy" --input x_infer="$work/x_infer.npy" --output loss="$work/device/loss.f32" \
  --output logits="$work/device/logits.f32" --output "${outs[@]}" > "$work/run.log" 2>&1 \
  || { cat "$work/run.log"; fail "tessera run"; }
grep "done:" "$work/run.log" || true
$py "$src/examples/alexnet/alexnet_train_step.py" compare "$work" "$work/device" || fail "the step differs from PyTorch's"
echo "$me: ok"
