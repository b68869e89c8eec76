#!/bin/sh
# run_program.sh CC COSIM SRC EXPECT: builds one bare-metal test program of tests/rtl (as
# run_lockstep.sh builds the tessera-rvgen programs, with firmware/isa-tests on the include
# path), runs it with tessera-cosim in lock-step; it must exit 0 and print EXPECT.
set -u
cc=$1 cosim=$2 src=$3 expect=$4
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/tessera-rtl.XXXXXX")
trap 'rm -rf "$dir"' EXIT
elf="$dir/$(basename "$src" .S).elf"
"$cc" -march=rv32imf_zicsr_zifencei -mabi=ilp32f -nostdlib -nostartfiles -static \
  -I"$root/firmware/isa-tests" -Wl,--no-warn-rwx-segments -T "$root/firmware/link.ld" "$src" -o "$elf" || exit 1
"$cosim" "$elf" > "$dir/out" 2> "$dir/err"
rc=$?
cat "$dir/out" "$dir/err"
[ $rc -eq 0 ] || { echo "FAIL: tessera-cosim exited with status $rc"; exit 1; }
grep -q "$expect" "$dir/out" || { echo "FAIL: the console did not print '$expect'"; exit 1; }
echo "passed"
