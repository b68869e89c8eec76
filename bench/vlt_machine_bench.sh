#!/usr/bin/env bash
# The Verilated machines (sim/vlt/machine, the kernel of rtl/top): what the `tiny` and `small`
# models cost to build and how fast they simulate, with 1 simulation thread and with 2 (when
# the machine has at least 2 cores: Verilator's --threads, TESSERA_VLT_MACHINE_THREADS).
# For each thread count T:
#   (a) configure a fresh scratch build directory with TESSERA_VLT_MACHINE_THREADS=T (this runs
#       Verilator for every model of the project), then build each machine model from nothing,
#       one after the other, -j$(nproc): wall time and peak memory (the largest max RSS of a
#       single process of that build, as `time -v` reports it for ninja and its children).
#   (b) run the `train` program of one training executable per target (compiled by `tessera`:
#       784-8-10, batch 4 on `tiny`; 784-64-10, batch 16 on `small`; random
#       host data) RUNS times through tessera-vlt-machine[-small]: the median simulated
#       cycles per second of the machine clock (every cycle of every tile, network and host
#       port; cycles are counted by the harness, time is wall time of the run).
# Usage: bench/vlt_machine_bench.sh
# Environment: RUNS (3), THREADS (default "1 2", or "1" on a 1-core machine), VLT_BENCH_DIR
# (prefix of the scratch directories, DIR-t1, DIR-t2; default temporary ones, removed
# afterwards), VLT_BENCH_SKIP_BUILD=1 (with VLT_BENCH_DIR: skip (a), run in the directories an
# earlier call built), VLT_BENCH_SKIP_RUN=1 (only (a)), TESSERA (a built `tessera` of the same
# sources, to compile the executables without building one in each scratch directory). Build times are given as wall time and
# as CPU time (user + sys of every process), which other work on the machine disturbs less.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
if [ "$(nproc)" -ge 2 ]; then threads=${THREADS:-1 2}; else threads=${THREADS:-1}; fi
skip_build=${VLT_BENCH_SKIP_BUILD:-0}
skip_run=${VLT_BENCH_SKIP_RUN:-0}
fail() { echo "vlt_machine_bench: $*" >&2; exit 1; }
command -v verilator > /dev/null || { echo "vlt_machine_bench: Verilator is not installed; skipped"; exit 0; }
[ -x /usr/bin/time ] || fail "/usr/bin/time missing (apt-get install time)"
[ "$skip_build" != 1 ] || [ -n "${VLT_BENCH_DIR:-}" ] || fail "VLT_BENCH_SKIP_BUILD=1 needs VLT_BENCH_DIR"
work=$(mktemp -d "${TMPDIR:-/tmp}/tessera-vlt-machine-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Seconds of wall time, CPU seconds and peak MB from a `time -v` report.
wall_s() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + t[i]; printf "%.0f", s}' "$1"; }
cpu_s() { awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {printf "%.0f", u + s}' "$1"; }
peak_mb() { awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$1"; }

# The two executables, compiled with $TESSERA if set, else with the scratch build's `tessera`.
compile_workloads() {
  local cli=${TESSERA:-$1/host/cli/tessera}
  if [ -z "${TESSERA:-}" ]; then
    cmake --build "$1" -j"$(nproc)" --target tessera > "$work/build.log" 2>&1 \
      || { tail -n 30 "$work/build.log" >&2; fail "building tessera failed"; }
  fi
  "$cli" compile mnist-train --target tiny --widths 784,8,10 --batch 4 --steps-per-sync 1 --infer-batch 4 \
    -o "$work/tiny.tsx" > "$work/compile.log" 2>&1 || { cat "$work/compile.log" >&2; fail "compiling for tiny failed"; }
  "$cli" compile mnist-train --target small --widths 784,64,10 --batch 16 --steps-per-sync 1 --infer-batch 16 \
    -o "$work/small.tsx" > "$work/compile.log" 2>&1 || { cat "$work/compile.log" >&2; fail "compiling for small failed"; }
}

# Runs "$@" RUNS times; prints "cycles seconds" of the median run (by seconds), from the line
# "RTL: N cycles in S s (X cycles/s)".
median_run() {
  local i out
  for ((i = 0; i < runs; ++i)); do
    out=$("$@" 2>&1) || { echo "$out" >&2; fail "$* failed"; }
    sed -n 's/^RTL: \([0-9]*\) cycles in \([0-9.]*\) s.*/\1 \2/p' <<< "$out" | grep . \
      || fail "no 'RTL: ... cycles' line from $*: $out"
  done | sort -k2 -g | sed -n "$(((runs + 1) / 2))p"
}

echo "Verilated machines ($(verilator --version | awk '{print $1, $2}')), $(nproc) cores, median of $runs runs"
printf "  %-6s %-7s %10s %9s %8s %14s %9s %10s\n" model threads "build wall" "build CPU" "peak MB" "cycles of run" seconds cycles/s
for t in $threads; do
  scratch=${VLT_BENCH_DIR:-$work/build}-t$t
  if [ "$skip_build" != 1 ]; then
    rm -rf "$scratch"
    /usr/bin/time -v -o "$work/cfg.time" cmake -S . -B "$scratch" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DTESSERA_VLT_MACHINE_TARGETS="tiny;small" -DTESSERA_VLT_MACHINE_THREADS="$t" > "$work/cfg.log" 2>&1 \
      || { tail -n 30 "$work/cfg.log" >&2; fail "configure failed"; }
    printf "  configure, --threads %s (runs Verilator for every model of the project): %s s wall, %s s CPU, peak %s MB\n" \
      "$t" "$(wall_s "$work/cfg.time")" "$(cpu_s "$work/cfg.time")" "$(peak_mb "$work/cfg.time")"
  fi
  [ "$skip_run" = 1 ] || compile_workloads "$scratch"
  for target in tiny small; do
    if [ "$target" = tiny ]; then sfx=""; else sfx="_$target"; fi
    model=tessera_vlt_machine_model$sfx
    tool=tessera-vlt-machine${sfx/_/-}
    bw="-" bc="-" bp="-" cycles=0 secs=0
    if [ "$skip_build" != 1 ]; then
      /usr/bin/time -v -o "$work/build.time" cmake --build "$scratch" -j"$(nproc)" --target "$model" \
        > "$work/build.log" 2>&1 || { tail -n 30 "$work/build.log" >&2; fail "building $model failed"; }
      bw="$(wall_s "$work/build.time") s" bc="$(cpu_s "$work/build.time") s" bp=$(peak_mb "$work/build.time")
    fi
    if [ "$skip_run" != 1 ]; then
      cmake --build "$scratch" -j"$(nproc)" --target "$tool" > "$work/build.log" 2>&1 \
        || { tail -n 30 "$work/build.log" >&2; fail "building $tool failed"; }
      read -r cycles secs <<< "$(median_run "$scratch/sim/vlt/machine/$tool" "$work/$target.tsx" --program train)"
    fi
    awk -v m="$target" -v t="$t" -v bw="$bw" -v bc="$bc" -v bp="$bp" -v c="$cycles" -v s="$secs" 'BEGIN {
      if (s > 0) printf "  %-6s %-7s %10s %9s %8s %14d %9.2f %10.0f\n", m, t, bw, bc, bp, c, s, c / s
      else printf "  %-6s %-7s %10s %9s %8s %14s %9s %10s\n", m, t, bw, bc, bp, "-", "-", "-" }'
  done
  [ -n "${VLT_BENCH_DIR:-}" ] || rm -rf "$scratch"
done
