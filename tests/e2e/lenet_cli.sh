#!/usr/bin/env bash
# The user's path for a CNN: tessera compile lenet.onnx, tessera run on the emulator (ISS)
# and on the Verilated `small` machine with .npy files: the RTL's logits the emulator's
# bytes, both within 1e-4 of PyTorch's.
# Usage: lenet_cli.sh TESSERA REFERENCE_DIR WORK_DIR
set -euo pipefail
tessera=$1 ref=$2 work=$3
py=/usr/bin/python3
mkdir -p "$work"
source "$(dirname "$0")/work_dir.sh" && work_dir_keep_small "$work"
n=2
"$py" -c "import numpy as np, sys; np.save(sys.argv[2], np.load(sys.argv[1])[:$n])" "$ref/test_x.npy" "$work/x.npy"
"$tessera" compile "$ref/lenet.onnx" --target small --batch $n -o "$work/lenet.tsx"
"$tessera" run "$work/lenet.tsx" --device emu --input x="$work/x.npy" --output logits="$work/emu.npy" \
  --report "$work/emu.json"
"$tessera" run "$work/lenet.tsx" --device vlt --input x="$work/x.npy" --output logits="$work/vlt.npy" \
  --timeout-ms 1200000
cmp "$work/emu.npy" "$work/vlt.npy"
"$py" - "$ref/test_logits.npy" "$work/vlt.npy" $n <<'PY'
import sys
import numpy as np
want, got, n = np.load(sys.argv[1])[:int(sys.argv[3])], np.load(sys.argv[2]), int(sys.argv[3])
d = float(np.abs(got - want).max())
print("Verilated small = emulator, bit for bit; largest difference from PyTorch %.3g" % d)
sys.exit(0 if d <= 1e-4 and (got.argmax(1) == want.argmax(1)).all() else 1)
PY
