#!/usr/bin/env bash
# AlexNet (torchvision 0.14, seeded weights) on the tiles against PyTorch: exported to ONNX by
# examples/alexnet/export_alexnet.py with COUNT seeded 224x224 images, compiled for TARGET at
# batch 1 (--batches COUNT: one image per host transfer), run in native mode. Checks each
# image's 1,000 logits within 1e-6 absolute of PyTorch's (untrained AlexNet's logits are about
# 0.02) and the 9,216 features the classifier reads within 1e-5 relative to their largest.
#   alexnet_infer.sh TESSERA SOURCE_DIR WORK_DIR [TARGET [COUNT [DEVICE]]]
#   (TARGET default ipu-mk2, COUNT 2, DEVICE emu-native; TESSERA_SEED: the weights' and
#   images' seed, default 0; scripts/demo and bench runs use COUNT 8)
set -euo pipefail
tessera=$1 src=$2 work=$3 target=${4:-ipu-mk2} count=${5:-2} device=${6:-emu-native} seed=${TESSERA_SEED:-0}
py=/usr/bin/python3
fail() { echo "alexnet_infer.sh: FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
echo "alexnet_infer.sh: $target, $count images, device $device, seed $seed (TESSERA_SEED), files in $work"

$py "$src/examples/alexnet/export_alexnet.py" "$work" --batch "$count" --seed "$seed" || fail "exporting AlexNet"
/usr/bin/time -f "alexnet_infer.sh: compile took %e s, %M KB" \
  "$tessera" compile "$work/alexnet.onnx" --target "$target" --batch 1 --batches "$count" -o "$work/alexnet.tsx" \
  > "$work/compile.log" 2>&1 || { cat "$work/compile.log"; fail "tessera compile"; }
grep -E "lowered|wrote" "$work/compile.log"
/usr/bin/time -f "alexnet_infer.sh: run took %e s, %M KB" \
  "$tessera" run "$work/alexnet.tsx" --device "$device" --threads 2 --input x="$work/x.npy" \
  --output logits="$work/device_logits.npy" features="$work/device_features.npy" > "$work/run.log" 2>&1 \
  || { cat "$work/run.log"; fail "tessera run"; }
tail -1 "$work/run.log"
$py - "$work" "$count" <<'PY'
import sys
import numpy as np
work, count = sys.argv[1], int(sys.argv[2])
ok = True
for name, bound, relative in (("logits", 1e-6, False), ("features", 1e-5, True)):
    dev = np.load(f"{work}/device_{name}.npy").reshape(count, -1).astype(np.float64)
    ref = np.load(f"{work}/{name}.npy").reshape(count, -1).astype(np.float64)
    for i in range(count):
        err = np.abs(dev[i] - ref[i]).max()
        scale = np.abs(ref[i]).max() if relative else 1.0
        good = err <= bound * scale
        ok &= bool(good)
        print(f"image {i}: {name} max |device - PyTorch| {err:.3g}" + (f" ({err / scale:.3g} of the largest)" if relative else "")
              + ("" if good else f"  > {bound:g}: FAIL"))
sys.exit(0 if ok else 1)
PY
echo "alexnet_infer.sh: PASS"
