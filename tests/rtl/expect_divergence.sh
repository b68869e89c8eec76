#!/bin/sh
# expect_divergence.sh COSIM ELF N: the lock-step comparison can fail. tessera-cosim with
# the emulator's result corrupted at retire N (--inject-divergence) must report a divergence
# and exit 1; the same run without the corruption must pass.
set -u
cosim=$1 elf=$2 n=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$cosim" "$elf" >/dev/null 2>"$out"
rc=$?
if [ $rc -ne 0 ]; then
  cat "$out"; echo "FAIL: the uncorrupted run exited with status $rc"; exit 1
fi
"$cosim" --inject-divergence "$n" "$elf" >/dev/null 2>"$out"
rc=$?
cat "$out"
if [ $rc -ne 1 ]; then echo "FAIL: a corrupted emulator register went unnoticed (exit status $rc, expected 1)"; exit 1; fi
if ! grep -q "DIVERGENCE at retire" "$out"; then echo "FAIL: exit status 1 but no divergence report"; exit 1; fi
echo "lockstep_detects_divergence: the corrupted register was reported, as it must be"
