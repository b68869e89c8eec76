#!/usr/bin/env bash
# tessera run --device card-sim and --device xrt, as a user runs them. A training executable
# for `tiny` (784-8-10, batch 4): `init`, one SGD step of `train` and `infer` on card-sim and
# on the emulator (ISS), every output file the same bytes. Then the XRT backend on a host
# without a card: exit status 1 and a message saying there is none; the command-line errors.
set -euo pipefail
tessera=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$tessera" compile mnist-train --target tiny --widths 784,8,10 --batch 4 --steps-per-sync 1 --infer-batch 4 \
  -o tiny.tsx > /dev/null

seed=${CLI_CARD_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "cli_card: seed $seed (CLI_CARD_SEED=$seed repeats this run)"
python3 - "$seed" <<'PY'
import random, struct, sys
seed = int(sys.argv[1])
open("seed.u32", "wb").write(struct.pack("<I", seed))
r = random.Random(seed)
open("x.f32", "wb").write(struct.pack("<%df" % (4 * 784), *(r.random() for _ in range(4 * 784))))
open("labels.u32", "wb").write(struct.pack("<4I", *(r.randrange(10) for _ in range(4))))
PY

for dev in emu card-sim; do
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
  a=${f/\%/emu} b=${f/\%/card-sim}
  [ -s "$a" ] || { echo "cli_card: $a is empty"; exit 1; }
  cmp "$a" "$b" || { echo "cli_card: $b differs from the emulator's $a"; exit 1; }
  echo "cli_card: $b: $(stat -c %s "$b") bytes, the same as the emulator's"
done

# No card: exit status 1, a message that says so.
touch some.xclbin
status=0
"$tessera" run tiny.tsx --device xrt --xclbin some.xclbin --program infer 2> xrt.log || status=$?
[ "$status" = 1 ] || { echo "cli_card: --device xrt without a card: exit status $status"; cat xrt.log; exit 1; }
grep -q "no Alveo card at index 0" xrt.log || grep -q "no XRT backend" xrt.log \
  || { echo "cli_card: unexpected error:"; cat xrt.log; exit 1; }
echo "cli_card: xrt: $(tail -n 1 xrt.log)"
status=0
"$tessera" run tiny.tsx --device xrt:3 --program infer 2> xrt.log || status=$?
[ "$status" = 1 ] && grep -q "needs --xclbin" xrt.log || { echo "cli_card: --device xrt:3 without --xclbin:"; cat xrt.log; exit 1; }
status=0
"$tessera" run tiny.tsx --device xrt:x --xclbin some.xclbin 2> xrt.log || status=$?
[ "$status" = 2 ] || { echo "cli_card: --device xrt:x: exit status $status"; cat xrt.log; exit 1; }
echo "cli_card: passed"
