#!/usr/bin/env bash
# Random RV32IMF programs (tessera-rvgen) on the tile RTL and the emulator in lock-step
# (tessera-cosim): every retired instruction is compared, not only the end state.
#
#   run_lockstep.sh --seed N [--length L]      one program (reproduces a reported failure)
#   run_lockstep.sh --count K [--length L]     K programs from the seed base: $TESSERA_SEED
#                                              (a number, or "random"), else 1
# Odd seeds start the RTL from random state: +verilator+rand+reset+2 +verilator+seed+<seed>
# (even seeds from zeros), so a seed alone reproduces a run. --min-insns M fails the run if
# fewer than M instructions were compared in total.
# Tools: --build-dir DIR (default: build/ next to tests/) gives tessera-rvgen and
# tessera-cosim; --rvgen, --cosim, --cc override each. --work-dir DIR keeps the files
# (default: a temporary directory, kept only when something fails); --keep keeps it anyway.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build_dir="$root/build"
rvgen="" cosim="" cc=""
seed="" count=40 length=10000 work_dir="" keep=0 min_insns=0 gen_args=()
max_failures=5

die() { echo "run_lockstep.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --seed) seed=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --length) length=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --rvgen) rvgen=$2; shift 2 ;;
    --cosim) cosim=$2; shift 2 ;;
    --cc) cc=$2; shift 2 ;;
    --work-dir) work_dir=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --min-insns) min_insns=$2; shift 2 ;;
    --no-short-illegal) gen_args+=(--no-short-illegal); shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

[ -n "$rvgen" ] || rvgen="$build_dir/tests/random/tessera-rvgen"
[ -n "$cosim" ] || cosim="$build_dir/sim/cosim/tessera-cosim"
[ -n "$cc" ] || cc=$(command -v riscv64-unknown-elf-gcc) || die "riscv64-unknown-elf-gcc not found (--cc)"
[ -x "$rvgen" ] || die "no tessera-rvgen at $rvgen (build it, or pass --build-dir/--rvgen)"
[ -x "$cosim" ] || die "no tessera-cosim at $cosim (build it, or pass --build-dir/--cosim)"
ld_script="$root/tests/random/rvgen.ld"

if [ -n "$seed" ]; then
  base=$seed
  count=1
else
  base=${TESSERA_SEED:-1}
  [ "$base" = random ] && base=$(( $(date +%s) % 1000000 ))
fi
case "$base" in ''|*[!0-9]*) die "seed must be a non-negative integer, not '$base'" ;; esac

tmp_work=0
if [ -z "$work_dir" ]; then
  work_dir=$(mktemp -d "${TMPDIR:-/tmp}/tessera-lockstep.XXXXXX")
  tmp_work=1
fi
mkdir -p "$work_dir" || die "cannot create $work_dir"

# The command that reproduces one seed, as printed on a failure.
repro() {
  local cmd="$here/run_lockstep.sh"
  if [ "$rvgen" = "$build_dir/tests/random/tessera-rvgen" ] && [ "$cosim" = "$build_dir/sim/cosim/tessera-cosim" ]; then
    [ "$build_dir" = "$root/build" ] || cmd+=" --build-dir $build_dir"
  else
    cmd+=" --rvgen $rvgen --cosim $cosim"
  fi
  cmd+=" --seed $1 --length $length ${gen_args[*]:-}"
  echo "${cmd% }"
}

echo "rtl.random_lockstep: seeds $base..$((base + count - 1)) (TESSERA_SEED=$base), $length random instructions each, odd seeds with random reset, files in $work_dir"
failures=0 ran=0 insns=0 cycles=0
start=$(date +%s)
for ((i = 0; i < count; i++)); do
  s=$((base + i))
  p="$work_dir/rv$s"
  ran=$((ran + 1))
  plus=()
  (( s % 2 == 1 )) && plus=(+verilator+rand+reset+2 "+verilator+seed+$s")
  if ! "$rvgen" --seed "$s" --length "$length" "${gen_args[@]}" -o "$p.S"; then
    echo "FAIL seed $s: tessera-rvgen failed"; failures=$((failures + 1)); continue
  fi
  if ! "$cc" -march=rv32imf_zicsr_zifencei -mabi=ilp32f -nostdlib -nostartfiles -static \
      -Wl,--no-warn-rwx-segments -T "$ld_script" "$p.S" -o "$p.elf" 2> "$p.cc.err"; then
    echo "FAIL seed $s: the program does not assemble:"; head -5 "$p.cc.err"
    failures=$((failures + 1)); continue
  fi
  timeout 300 "$cosim" --require-timing "$p.elf" "${plus[@]}" > "$p.out" 2> "$p.err" < /dev/null
  rc=$?
  n=$(sed -n 's/^tessera-cosim: PASS: \([0-9]*\) instructions.*/\1/p' "$p.err")
  c=$(sed -n 's/^tessera-cosim: PASS: [0-9]* instructions in lock-step, \([0-9]*\) cycles.*/\1/p' "$p.err")
  if [ $rc -eq 0 ] && [ -n "$n" ] && [ "$(tail -1 "$p.out")" = "end=00000000" ]; then
    insns=$((insns + n)); cycles=$((cycles + ${c:-0}))
    echo "seed $s: $n instructions in lock-step${plus[*]:+ (${plus[*]})}"
    continue
  fi
  failures=$((failures + 1))
  case $rc in
    0) why="the end state is incomplete (no end line)" ;;
    1) why="the RTL and the emulator diverged" ;;
    124) why="timed out" ;;
    *) why="tessera-cosim exited with status $rc" ;;
  esac
  echo "FAIL seed $s${plus[*]:+ (${plus[*]})}: $why"
  grep -v '^tessera-cosim: random reset' "$p.err" | tail -25 | sed 's/^/    /'
  echo "  files: $p.{S,elf,out,err}; trace: $cosim --trace $p.elf ${plus[*]:-}"
  echo "  reproduce: $(repro "$s")"
  [ $failures -ge $max_failures ] && { echo "stopping after $failures failures"; break; }
done
elapsed=$(( $(date +%s) - start ))
echo "rtl.random_lockstep: $ran programs, $insns instructions compared in lock-step ($cycles RTL cycles), $failures failed, ${elapsed}s"
if [ $failures -eq 0 ] && [ "$insns" -lt "$min_insns" ]; then
  echo "FAIL: only $insns instructions compared, fewer than --min-insns $min_insns"
  failures=1
fi
if [ $failures -eq 0 ]; then
  [ $tmp_work = 1 ] && [ $keep = 0 ] && rm -rf "$work_dir"
  exit 0
fi
exit 1
