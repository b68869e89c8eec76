#!/usr/bin/env bash
# Random RV32IMF instruction streams on the Tessera ISS and on QEMU, compared by end state.
#
# For each seed: tessera-rvgen writes a program, riscv64-unknown-elf-gcc builds it, both
# tessera-emu and qemu-system-riscv32 (spike machine, a CPU configured like a Tessera hart)
# run it, and their console output (the end state, one `name=hex` line each) must match.
#
#   run_random.sh --seed N [--length L]          one program (reproduces a reported failure)
#   run_random.sh --count K [--length L]         K programs from the seed base: $TESSERA_SEED
#                                                (a number, or "random"), else 1
# Tools: --build-dir DIR (default: build/ next to tests/) gives tessera-rvgen and
# tessera-emu; --rvgen, --emu, --cc, --qemu override each. --work-dir DIR keeps the files
# (default: a temporary directory, kept only when something fails); --keep keeps it anyway.
# --self-test runs one program with a corrupted ISS line and succeeds only if the comparison
# reports the difference.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build_dir="$root/build"
rvgen="" emu="" cc="" qemu=""
seed="" count=40 length=3000 work_dir="" keep=0 self_test=0 gen_args=()
max_failures=5

die() { echo "run_random.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --seed) seed=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --length) length=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --rvgen) rvgen=$2; shift 2 ;;
    --emu) emu=$2; shift 2 ;;
    --cc) cc=$2; shift 2 ;;
    --qemu) qemu=$2; shift 2 ;;
    --work-dir) work_dir=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --no-short-illegal) gen_args+=(--no-short-illegal); shift ;;
    --self-test) self_test=1; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

[ -n "$rvgen" ] || rvgen="$build_dir/tests/random/tessera-rvgen"
[ -n "$emu" ] || emu="$build_dir/sim/emu/tessera-emu"
[ -n "$cc" ] || cc=$(command -v riscv64-unknown-elf-gcc) || die "riscv64-unknown-elf-gcc not found (--cc)"
[ -n "$qemu" ] || qemu=$(command -v qemu-system-riscv32) || die "qemu-system-riscv32 not found (--qemu)"
command -v timeout >/dev/null || die "timeout (coreutils) not found"
[ -x "$rvgen" ] || die "no tessera-rvgen at $rvgen (build it, or pass --build-dir/--rvgen)"
[ -x "$emu" ] || die "no tessera-emu at $emu (build it, or pass --build-dir/--emu)"
ld_script="$here/rvgen.ld"

# QEMU's hart made as close to a Tessera tile core as QEMU 7.2 allows: RV32IMF, Zicsr,
# Zifencei; no A, C, D, V, H, bit-manipulation, S/U modes, MMU, PMP, debug triggers, Sstc or
# pause; all 29 hpm counters present (and zero, as ours are); our ID register values.
qemu_cpu="rv32,i=true,m=true,f=true,a=false,c=false,d=false,v=false,h=false,s=false,u=false"
qemu_cpu+=",zba=false,zbb=false,zbc=false,zbs=false,Zfh=false,Zfhmin=false,Zihintpause=false"
qemu_cpu+=",Zicsr=true,Zifencei=true,mmu=false,pmp=false,debug=false,sstc=false,pmu-num=29"
qemu_cpu+=",priv_spec=v1.12.0,mvendorid=0,marchid=0,mimpid=0x10000"

if [ -n "$seed" ]; then
  base=$seed
  count=1
else
  base=${TESSERA_SEED:-1}
  [ "$base" = random ] && base=$(( $(date +%s) % 1000000 ))
fi
case "$base" in ''|*[!0-9]*) die "seed must be a non-negative integer, not '$base'" ;; esac
if [ "$self_test" = 1 ]; then count=1; fi

tmp_work=0
if [ -z "$work_dir" ]; then
  work_dir=$(mktemp -d "${TMPDIR:-/tmp}/tessera-random.XXXXXX")
  tmp_work=1
fi
mkdir -p "$work_dir" || die "cannot create $work_dir"

# The command that reproduces one seed, as printed on a failure.
repro() {
  local cmd="$here/run_random.sh"
  if [ "$rvgen" = "$build_dir/tests/random/tessera-rvgen" ] && [ "$emu" = "$build_dir/sim/emu/tessera-emu" ]; then
    [ "$build_dir" = "$root/build" ] || cmd+=" --build-dir $build_dir"
  else
    cmd+=" --rvgen $rvgen --emu $emu"
  fi
  cmd+=" --seed $1 --length $length ${gen_args[*]:-}"
  echo "${cmd% }"
}

echo "random.iss_vs_qemu: seeds $base..$((base + count - 1)) (TESSERA_SEED=$base), $length instructions each, files in $work_dir"
# The CPU options and the differences the programs steer around are those of QEMU 7.2.
qemu_version=$("$qemu" --version | head -1)
case "$qemu_version" in
  *"version 7.2"*) ;;
  *) echo "note: tuned for QEMU 7.2, this is: $qemu_version" ;;
esac
failures=0
ran=0
insns=0
start=$(date +%s)
for ((i = 0; i < count; i++)); do
  s=$((base + i))
  p="$work_dir/rv$s"
  ran=$((ran + 1))
  if ! "$rvgen" --seed "$s" --length "$length" "${gen_args[@]}" -o "$p.S"; then
    echo "FAIL seed $s: tessera-rvgen failed"; failures=$((failures + 1)); continue
  fi
  if ! "$cc" -march=rv32imf_zicsr_zifencei -mabi=ilp32f -nostdlib -nostartfiles -static \
      -Wl,--no-warn-rwx-segments -T "$ld_script" "$p.S" -o "$p.elf" 2> "$p.cc.err"; then
    echo "FAIL seed $s: the program does not assemble:"; head -5 "$p.cc.err"
    failures=$((failures + 1)); continue
  fi
  timeout 60 "$emu" --stats --max-insns 100000000 "$p.elf" > "$p.iss.out" 2> "$p.iss.err" < /dev/null
  iss_rc=$?
  timeout 60 "$qemu" -machine spike -bios none -nographic -monitor none -serial stdio \
    -cpu "$qemu_cpu" -kernel "$p.elf" > "$p.qemu.out" 2> "$p.qemu.err" < /dev/null
  qemu_rc=$?
  n=$(sed -n 's/^tessera-emu: \([0-9]*\) instructions.*/\1/p' "$p.iss.err")
  insns=$((insns + ${n:-0}))
  if [ "$self_test" = 1 ]; then  # corrupt one value of the ISS's end state
    sed -i 's/^x5=\(.*\)./x5=\1!/' "$p.iss.out"
  fi

  problem=""
  if [ $iss_rc -ne 0 ]; then
    problem="tessera-emu exited with status $iss_rc$([ $iss_rc = 124 ] && echo ' (timed out)'): $(grep -v instructions "$p.iss.err" | tail -2 | tr '\n' ' ')"
  fi
  if [ $qemu_rc -ne 0 ]; then
    problem+="${problem:+; }qemu exited with status $qemu_rc$([ $qemu_rc = 124 ] && echo ' (timed out)'): $(tail -2 "$p.qemu.err" | tr '\n' ' ')"
  fi
  if ! cmp -s "$p.iss.out" "$p.qemu.out"; then
    first=$(diff <(cat -n "$p.iss.out") <(cat -n "$p.qemu.out") | sed -n 's/^< *\([0-9]*\)\t\(.*\)/\1 \2/p' | head -1)
    line=${first%% *}
    if [ -z "$line" ]; then  # the ISS printed less
      line=$(( $(wc -l < "$p.iss.out") + 1 ))
    fi
    iss_line=$(sed -n "${line}p" "$p.iss.out")
    qemu_line=$(sed -n "${line}p" "$p.qemu.out")
    problem+="${problem:+; }end states differ at line $line: ISS '${iss_line:-<none>}' vs QEMU '${qemu_line:-<none>}'"
    ndiff=$(diff "$p.iss.out" "$p.qemu.out" | grep -c '^<')
    [ "$ndiff" -gt 1 ] && problem+=" ($ndiff lines differ)"
  elif [ "$(tail -1 "$p.iss.out")" != "end=00000000" ]; then
    problem+="${problem:+; }the end state is incomplete (no end line)"
  fi

  if [ -n "$problem" ]; then
    failures=$((failures + 1))
    echo "FAIL seed $s: $problem"
    if [ "$self_test" = 0 ]; then
      echo "  all differences (< ISS, > QEMU):"
      diff "$p.iss.out" "$p.qemu.out" | grep '^[<>]' | head -20 | sed 's/^/    /'
      echo "  files: $p.{S,elf,iss.out,qemu.out}; trace: $emu --trace $p.elf"
      echo "  reproduce: $(repro "$s")"
    fi
    [ $failures -ge $max_failures ] && [ "$self_test" = 0 ] && { echo "stopping after $failures failures"; break; }
  fi
done
elapsed=$(( $(date +%s) - start ))

if [ "$self_test" = 1 ]; then
  [ $tmp_work = 1 ] && [ $keep = 0 ] && rm -rf "$work_dir"
  if [ $failures -eq 1 ]; then echo "self-test: the corrupted end state was reported, as it must be"; exit 0; fi
  echo "self-test FAILED: a corrupted ISS end state went unnoticed"; exit 1
fi
echo "random.iss_vs_qemu: $ran programs, $insns instructions executed on the ISS, $failures failed, ${elapsed}s"
if [ $failures -eq 0 ]; then
  [ $tmp_work = 1 ] && [ $keep = 0 ] && rm -rf "$work_dir"
  exit 0
fi
exit 1
