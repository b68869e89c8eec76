#!/usr/bin/env bash
# `tessera compile mnist-train` + `tessera train` end to end on a small model: trains 20 steps
# from a seeded plan in native mode, saves the weights, the losses and an ONNX export, and
# checks them: the weights moved from the plan's, the losses are finite, and the exported
# model, evaluated independently (examples/mnist/eval_onnx.py, numpy engine), predicts what
# the device predicted on all 2,000 test digits.
#   train_cli.sh TESSERA_CLI SOURCE_DIR
set -euo pipefail
tessera=$1 src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-train-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "train_cli.sh: $*" >&2; exit 1; }

"$tessera" compile mnist-train --widths 784,32,16,10 --target small --batch 8 --steps-per-sync 5 \
  --epochs 1 --train-size 160 --infer-batch 100 -o "$work/train.tsx"
"$tessera" train "$work/train.tsx" --seed 3 --export-plan "$work/plan" --max-steps 20 \
  --save "$work/trained" --losses "$work/losses.f32" --onnx "$work/model.onnx" | tee "$work/out.txt"

grep -q "MNIST test digits: .* accuracy" "$work/out.txt" || fail "no accuracy printed"
for f in w1 b1 w2 b2 w3 b3; do
  [ -s "$work/trained/$f.f32" ] || fail "no trained $f.f32"
  cmp -s "$work/plan/$f.f32" "$work/trained/$f.f32" && fail "$f did not change in training"
done
[ "$(stat -c %s "$work/losses.f32")" = 80 ] || fail "losses.f32 should hold 20 f32"
/usr/bin/python3 -c "import numpy, sys; l = numpy.fromfile(sys.argv[1], numpy.float32); sys.exit(0 if numpy.isfinite(l).all() and l.min() > 0 else 1)" \
  "$work/losses.f32" || fail "the losses are not all finite and positive"
/usr/bin/python3 "$src/examples/mnist/eval_onnx.py" "$work/model.onnx" --engine numpy \
  --compare "$work/trained/test_pred.u8" | tee "$work/onnx.txt"
grep -q "on 2000/2000 predictions" "$work/onnx.txt" || fail "the ONNX export predicts differently from the device"
echo "train_cli.sh: ok"
