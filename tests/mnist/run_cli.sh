#!/usr/bin/env bash
# tessera compile mnist-mlp + tessera run --mnist-test, as a user runs them; passes if the
# run agrees with PyTorch's predictions on at least 1998 of the 2000 digits.
set -euo pipefail
tessera=$1 reference=$2 model=$3
"$tessera" compile mnist-mlp --weights "$reference" --target small --batch 40 --batches 50 -o "$model"
out=$("$tessera" run "$model" --device emu-native --mnist-test --reference-preds "$reference/test_pred.u8")
echo "$out"
same=$(echo "$out" | sed -n 's/^agreement with the reference predictions: \([0-9]*\)\/2000.*/\1/p')
[ -n "$same" ] && [ "$same" -ge 1998 ] || { echo "mnist.cli: agreement ${same:-missing} < 1998/2000"; exit 1; }
