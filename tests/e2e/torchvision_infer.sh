#!/usr/bin/env bash
# A torchvision 0.14 model (seeded weights, nothing downloaded) on the tiles against PyTorch:
# exported to ONNX by its script under examples/ with COUNT seeded 224x224 images, compiled
# for TARGET at batch BATCH (--batches COUNT/BATCH: BATCH images per host transfer), run on
# DEVICE.
#   alexnet:  each image's 1,000 logits within 1e-6 absolute of PyTorch's (untrained
#             AlexNet's logits are about 0.02), and the 9,216 features the classifier reads
#             within 1e-5 relative to their largest;
#   resnet18: the logits within 1e-4 absolute (they reach about 4.5);
# and the run moves only the images and the outputs between the host and the device.
#   torchvision_infer.sh TESSERA SOURCE_DIR WORK_DIR MODEL [TARGET [COUNT [DEVICE [BATCH]]]]
#   (TARGET default ipu-mk2, COUNT 2, DEVICE emu-native, BATCH 1, dividing COUNT;
#   TESSERA_SEED: the weights' and images' seed, default 0; PLAN: tessera compile's --plan,
#   default machine)
set -euo pipefail
tessera=$1 src=$2 work=$3 model=$4 target=${5:-ipu-mk2} count=${6:-2} device=${7:-emu-native} batch=${8:-1}
seed=${TESSERA_SEED:-0} plan=${PLAN:-machine}
py=/usr/bin/python3
me=torchvision_infer.sh
fail() { echo "$me: FAIL: $*" >&2; exit 1; }
case $model in
  alexnet) export=examples/alexnet/export_alexnet.py outputs="logits:1e-6:abs features:1e-5:rel" ;;
  resnet18) export=examples/resnet/export_resnet18.py outputs="logits:1e-4:abs" ;;
  *) fail "unknown model '$model' (alexnet or resnet18)" ;;
esac
(( batch > 0 && count % batch == 0 )) || fail "BATCH $batch does not divide COUNT $count"
rm -rf "$work" && mkdir -p "$work"
source "$(dirname "$0")/work_dir.sh" && work_dir_keep_small "$work"
echo "$me: $model on $target (planned for the $plan), $count images at batch $batch, device $device, seed $seed (TESSERA_SEED), files in $work"

$py "$src/$export" "$work" --batch "$count" --seed "$seed" || fail "exporting $model"
/usr/bin/time -f "$me: compile took %e s, %M KB" \
  "$tessera" compile "$work/$model.onnx" --target "$target" --batch "$batch" --batches $((count / batch)) \
  --plan "$plan" -o "$work/$model.tsx" \
  > "$work/compile.log" 2>&1 || { cat "$work/compile.log"; fail "tessera compile"; }
grep -E "lowered|wrote" "$work/compile.log"
outs=()
for o in $outputs; do outs+=("${o%%:*}=$work/device_${o%%:*}.npy"); done
/usr/bin/time -f "$me: run took %e s, %M KB" \
  "$tessera" run "$work/$model.tsx" --device "$device" --threads 2 --timeout-ms 900000 --input x="$work/x.npy" \
  --output "${outs[@]}" > "$work/run.log" 2>&1 \
  || { cat "$work/run.log"; fail "tessera run"; }
tail -1 "$work/run.log"
$py - "$work" "$count" $outputs <<'PY'
import re
import sys
import numpy as np
work, count = sys.argv[1], int(sys.argv[2])
ok = True
# Only the images and the outputs cross between the host and the device: weights were loaded
# once (or stream from device memory), never sent per run.
moved = int(re.search(r"(\d+) bytes to and from the host", open(f"{work}/run.log").read()).group(1))
expect = np.load(f"{work}/x.npy").nbytes + sum(np.load(f"{work}/{s.split(':')[0]}.npy").nbytes for s in sys.argv[3:])
print(f"bytes to and from the host: {moved} (images and outputs: {expect})")
ok &= moved == expect
for spec in sys.argv[3:]:
    name, bound, kind = spec.split(":")
    bound, relative = float(bound), kind == "rel"
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
echo "$me: PASS"
