#!/usr/bin/env bash
# `tessera train --device-init` end to end on a small model: program "init" sets the
# parameters on the device (Philox4x32-10, seed from --seed), then 300 steps of a seeded plan
# in native mode; the loss must fall (the mean of the last 50 steps below 60% of the first
# 25's) and the test accuracy pass 60%. Also: the command-line errors of the option.
#   train_device_init.sh TESSERA_CLI
set -euo pipefail
tessera=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-device-init.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "train_device_init.sh: $*" >&2; exit 1; }

"$tessera" compile mnist-train --widths 784,32,16,10 --target small --batch 16 --steps-per-sync 25 \
  --epochs 1 --train-size 4800 --infer-batch 100 -o "$work/train.tsx" | tee "$work/compile.txt"
grep -q "init   { in seed u32\[1\]" "$work/compile.txt" || fail "the compile printout does not show program init"

"$tessera" train "$work/train.tsx" --seed 7 --epochs 1 --device-init --max-steps 300 \
  --losses "$work/losses.f32" --save "$work/trained" | tee "$work/out.txt"
grep -q "from device init seed 7" "$work/out.txt" || fail "no device init in the printout"
acc=$(sed -n 's/.*accuracy \([0-9.]*\)%.*/\1/p' "$work/out.txt")
[ -n "$acc" ] || fail "no accuracy printed"
awk -v a="$acc" 'BEGIN { exit !(a > 60) }' || fail "accuracy $acc% after 300 steps"
[ "$(stat -c %s "$work/losses.f32")" = 1200 ] || fail "losses.f32 should hold 300 f32"
# the mean losses from the raw f32 file (od: one float per line)
od -An -v -f -w4 "$work/losses.f32" | awk '
  NR <= 25 { a += $1 } NR > 250 { b += $1 }
  END { a /= 25; b /= 50; printf "train_device_init.sh: mean loss, steps 1-25: %.4f, steps 251-300: %.4f\n", a, b;
        exit !(a > 2 && b < 0.6 * a) }' || fail "the loss did not fall"

# errors name what is wrong (exit 1)
set +e
"$tessera" train "$work/train.tsx" --plan "$work/nonexistent" --device-init > "$work/err1.txt" 2>&1
rc1=$?
"$tessera" train "$work/train.tsx" --seed 7 --init-seed 3 > "$work/err2.txt" 2>&1
rc2=$?
set -e
[ $rc1 = 1 ] && grep -q -- "--device-init with --plan needs --init-seed" "$work/err1.txt" || fail "--device-init --plan: $(cat "$work/err1.txt")"
[ $rc2 = 1 ] && grep -q -- "--init-seed is an option of --device-init" "$work/err2.txt" || fail "--init-seed alone: $(cat "$work/err2.txt")"
echo "train_device_init.sh: ok"
