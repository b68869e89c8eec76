#!/bin/sh
# expect_trap_halt.sh CC SRC CAUSE FIRST_CAUSE SIM...
# Builds the bare-metal program SRC (tests/isa/trap-halt-*.S) and runs it on each simulator
# (tessera-emu, tessera-vlt, tessera-cosim). Each must halt on a trap (exit status 66; tessera-cosim 3) and
# report "halted on CAUSE at pc P", where P is the address of the program's symbol
# halt_here; the single-model simulators must also report "first trap: FIRST_CAUSE at pc F",
# F the address of first_trap (the first-trap latch). The expected addresses come from the
# ELF's symbol table (the assembler's layout), not from any simulator.
set -u
cc=$1 src=$2 cause=$3 first_cause=$4
shift 4
nm=$(echo "$cc" | sed 's/gcc$/nm/')
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/tessera-halt.XXXXXX")
trap 'rm -rf "$dir"' EXIT
elf="$dir/$(basename "$src" .S).elf"
"$cc" -march=rv32imf_zicsr_zifencei -mabi=ilp32f -nostdlib -nostartfiles -static \
  -Wl,--no-warn-rwx-segments -T "$root/firmware/link.ld" "$src" -o "$elf" || exit 1
sym() { "$nm" "$elf" | sed -n "s/^\([0-9a-f]*\) . $1\$/\1/p"; }
halt_pc=$(sym halt_here) first_pc=$(sym first_trap)
if [ -z "$halt_pc" ] || [ -z "$first_pc" ]; then
  echo "FAIL: $src defines no halt_here or first_trap symbol"; exit 1
fi
status=0
for sim in "$@"; do
  name=$(basename "$sim")
  "$sim" "$elf" > "$dir/out" 2>&1
  rc=$?
  cat "$dir/out"
  # tessera-emu and tessera-vlt: 66 (their own status for a trap halt, docs/isa.md);
  # tessera-cosim: 3 (both models halted on the same trap).
  want=66
  case "$name" in *cosim*) want=3 ;; esac
  if [ $rc -ne $want ]; then
    echo "FAIL: $name exited with status $rc, expected $want (halted on a trap)"; status=1; continue
  fi
  if ! grep -q "halted on $cause at pc 0x$halt_pc " "$dir/out"; then
    echo "FAIL: $name did not report 'halted on $cause at pc 0x$halt_pc'"; status=1
  fi
  case "$name" in
    *cosim*) ;;   # reports the halt only; each model's first trap is checked on its own
    *)
      if ! grep -q "first trap: $first_cause at pc 0x$first_pc " "$dir/out"; then
        echo "FAIL: $name did not report 'first trap: $first_cause at pc 0x$first_pc'"; status=1
      fi ;;
  esac
done
[ $status -eq 0 ] && echo "passed"
exit $status
