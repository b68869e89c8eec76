#!/usr/bin/env bash
# tessera run --device vlt, as a user runs it: a training executable for `tiny` (784-8-10,
# batch 4) is compiled, then its programs run on the Verilated machine and on the emulator
# (ISS), and every output file must be the same bytes: `init` (the Philox initialisation on
# every tile, streamed seed) with weights read back, one SGD step of `train` on random digits
# and labels (the loss streamed out, the updated weights read back), and `infer` (the logits). Then the error a user meets with an executable of
# a target that has no Verilated model.
set -euo pipefail
tessera=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$tessera" compile mnist-train --target tiny --widths 784,8,10 --batch 4 --steps-per-sync 1 --infer-batch 4 \
  -o tiny.tsx > /dev/null

seed=${CLI_VLT_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "cli_vlt: seed $seed (CLI_VLT_SEED=$seed repeats this run)"
# The seed of `init` as one u32, and 4 digits of pixels in [0, 1) as float32, from the seed.
python3 - "$seed" <<'PY'
import random, struct, sys
seed = int(sys.argv[1])
open("seed.u32", "wb").write(struct.pack("<I", seed))
r = random.Random(seed)
open("x.f32", "wb").write(struct.pack("<%df" % (4 * 784), *(r.random() for _ in range(4 * 784))))
open("labels.u32", "wb").write(struct.pack("<4I", *(r.randrange(10) for _ in range(4))))
PY

for dev in emu vlt; do
  "$tessera" run tiny.tsx --device "$dev" --program init --input seed=seed.u32 \
    --output fc1.w="init-$dev-fc1.w" --output fc2.b="init-$dev-fc2.b" 2> "init-$dev.log" \
    || { cat "init-$dev.log"; exit 1; }
  "$tessera" run tiny.tsx --device "$dev" --program train --input x=x.f32 --input labels=labels.u32 \
    --output loss="train-$dev-loss" --output fc1.w="train-$dev-fc1.w" 2> "train-$dev.log" \
    || { cat "train-$dev.log"; exit 1; }
  "$tessera" run tiny.tsx --device "$dev" --program infer --input x_infer=x.f32 \
    --output logits="infer-$dev-logits" 2> "infer-$dev.log" || { cat "infer-$dev.log"; exit 1; }
done
for f in init-%-fc1.w init-%-fc2.b train-%-loss train-%-fc1.w infer-%-logits; do
  a=${f/\%/emu} b=${f/\%/vlt}
  [ -s "$a" ] || { echo "cli_vlt: $a is empty"; exit 1; }
  cmp "$a" "$b" || { echo "cli_vlt: $b differs from the emulator's $a"; exit 1; }
  echo "cli_vlt: $b: $(stat -c %s "$b") bytes, the same as the emulator's"
done

# A target with no Verilated machine: a clear error, exit status 1.
"$tessera" compile mnist-train --target medium --widths 784,8,10 --batch 4 -o medium.tsx > /dev/null
if "$tessera" run medium.tsx --device vlt --program init --input seed=seed.u32 2> err.log; then
  echo "cli_vlt: --device vlt ran a medium executable"; exit 1
fi
grep -q "no verilated machine for target 'medium'" err.log || { echo "cli_vlt: unexpected error:"; cat err.log; exit 1; }
echo "cli_vlt: medium: $(tail -n 1 err.log)"
echo "cli_vlt: passed"
