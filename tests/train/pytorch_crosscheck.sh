#!/usr/bin/env bash
# The device's training against PyTorch's on identical inputs: the PyTorch reference
# (examples/mnist/train_sgd_reference.py) generates a plan from a seed (initial weights, batch
# order, shifts) and trains 300 steps of 784-256-128-10 from it; the full-size executable for
# `medium`, fed the same plan by `tessera train`, must give every step's loss within 1e-5
# (relative) of PyTorch's, weights after step 1 within 1e-6 (relative to each tensor's
# largest magnitude), and in ISS mode the same bits as in native mode after 2 steps.
#   pytorch_crosscheck.sh TESSERA_CLI SOURCE_DIR        (TESSERA_SEED: the plan's seed, default 0)
set -euo pipefail
tessera=$1 src=$2 seed=${TESSERA_SEED:-0}
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-crosscheck.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "pytorch_crosscheck.sh: $*" >&2; exit 1; }
echo "pytorch_crosscheck.sh: plan seed $seed (TESSERA_SEED), files in $work"

/usr/bin/python3 "$src/examples/mnist/train_sgd_reference.py" "$work/torch" --seed "$seed" \
  --export-plan "$work/plan" --max-steps 300 > "$work/torch.log" || { cat "$work/torch.log"; fail "the PyTorch reference failed"; }
"$tessera" compile mnist-train --steps-per-sync 1 --init "$work/plan" -o "$work/train.tsx" > "$work/compile.log" \
  || { cat "$work/compile.log"; fail "compile failed"; }

run() {  # run NAME DEVICE STEPS [more options]
  local name=$1 device=$2 steps=$3; shift 3
  "$tessera" train "$work/train.tsx" --plan "$work/plan" --device "$device" --max-steps "$steps" \
    --save "$work/$name" "$@" > "$work/$name.log" || { cat "$work/$name.log"; fail "tessera train ($name) failed"; }
}
run step1 emu-native 1
run native2 emu-native 2
run iss2 emu 2
run steps300 emu-native 300 --losses "$work/losses.f32"

for f in w1 b1 w2 b2 w3 b3; do
  cmp -s "$work/native2/$f.f32" "$work/iss2/$f.f32" || fail "$f after 2 steps: ISS and native differ"
done
/usr/bin/python3 - "$work" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
mine = np.fromfile(d + "/losses.f32", np.float32)
ref = np.fromfile(d + "/torch/losses.f32", np.float32)[:300]
rel = np.abs(mine.astype(np.float64) - ref) / np.abs(ref)
worst = int(np.argmax(rel))
print("per-step loss vs PyTorch over %d steps: largest relative difference %.3g at step %d" % (len(rel), rel[worst], worst))
ok = len(mine) == 300 and rel.max() <= 1e-5
for f in ["w1", "b1", "w2", "b2", "w3", "b3"]:
    a = np.fromfile(d + "/step1/" + f + ".f32", np.float32)
    b = np.fromfile(d + "/torch/step1/" + f + ".f32", np.float32)
    err = np.abs(a.astype(np.float64) - b).max() / np.abs(b).max()
    print("%s after step 1: largest difference %.3g of its largest magnitude" % (f, err))
    ok = ok and err <= 1e-6
sys.exit(0 if ok else 1)
PY
echo "pytorch_crosscheck.sh: ok"
