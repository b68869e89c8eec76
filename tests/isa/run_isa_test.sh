#!/bin/sh
# run_isa_test.sh EMU ELF QEMU
# Runs one self-checking ISA test program (firmware/isa-tests) on tessera-emu and then,
# unless QEMU is "-", on QEMU's spike machine. Both must exit 0. A failing program prints
# "isa-test FAIL: test N" on the HTIF console and exits with status N; this script names
# the simulator and the test number, or says what else went wrong.
set -u
emu=$1 elf=$2 qemu=$3
name=$(basename "$elf" .elf)

# QEMU's hart made as close as QEMU 7.2 allows to a Tessera tile core: RV32IMF + Zicsr +
# Zifencei, no A/C/D/H, no S or U mode, no MMU/PMP/debug triggers/Sstc/Zb*/Zihintpause,
# no HPM counters, priv spec 1.12, Tessera's mvendorid/marchid/mimpid.
QEMU_CPU=rv32,a=false,c=false,d=false,h=false,s=false,u=false,mmu=false,pmp=false
QEMU_CPU=$QEMU_CPU,debug=false,sstc=false,zba=false,zbb=false,zbc=false,Zihintpause=false
QEMU_CPU=$QEMU_CPU,pmu-num=0,priv_spec=v1.12.0,mvendorid=0,marchid=0,mimpid=0x10000

if [ ! -f "$elf" ]; then
  echo "$name: $elf does not exist (build the tessera_firmware target)"
  exit 1
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0

# report SIM RC: explains a non-zero exit status of SIM using its output in $out
report() {
  failed=$(sed -n 's/.*isa-test FAIL: test \([0-9]*\).*/\1/p' "$out" | head -n 1)
  if [ -n "$failed" ]; then
    echo "$name: FAILED on $1: test $failed (exit status $2)"
  else
    case "$1:$2" in
      tessera-emu:64) why="bad command line" ;;
      tessera-emu:65) why="bad ELF" ;;
      tessera-emu:66) why="the tile halted on a trap" ;;
      tessera-emu:67) why="instruction limit reached, program hung" ;;
      qemu:124) why="timed out after 20 s, program hung" ;;
      *) why="no failing test reported" ;;
    esac
    echo "$name: FAILED on $1: exit status $2: $why"
  fi
  status=1
}

echo "== tessera-emu $name"
"$emu" --max-insns 50000000 "$elf" >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 0 ] || report tessera-emu $rc

if [ "$qemu" != "-" ]; then
  echo "== qemu $name"
  timeout 20 "$qemu" -machine spike -bios none -nographic -cpu "$QEMU_CPU" \
    -kernel "$elf" </dev/null >"$out" 2>&1
  rc=$?
  cat "$out"
  [ $rc -eq 0 ] || report qemu $rc
else
  echo "(tessera-emu only)"
fi
[ $status -eq 0 ] && echo "$name: passed"
exit $status
