#!/usr/bin/env bash
# The Verilator model of the tile (the unit-bench model of sim/vlt/units, which holds the
# tile with the FPU and the mesh beside it; tessera-vlt drives the tile): what it costs to
# build and how fast it simulates, beside the ISS.
#   (a) configure a fresh scratch build directory, then build tessera_vlt_units_model
#       there from nothing: wall time, and peak memory = the largest max RSS of a single
#       process of the build (what `time -v` reports for ninja and its children: the
#       biggest one, not the sum of the jobs that ran together).
#   (b) tessera-vlt --stats on firmware/bench/int_bench.elf and fp_bench.elf (their
#       first VLT_MAX_CYCLES cycles; both are loops of identical rounds), RUNS times each,
#       median cycles/s and instructions/s, beside tessera-emu --stats on the whole ELF.
# Usage: bench/vlt_tile_bench.sh [BUILD_DIR]   (default $BUILD_DIR or build; it must have
# been configured; tessera-vlt, tessera-emu and the bench firmware are built there).
# Environment: RUNS (5), VLT_MAX_CYCLES (3000000), VLT_BENCH_DIR (scratch build
# directory, default a temporary one, removed afterwards), VLT_BENCH_SKIP_BUILD=1 skips (a).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-${BUILD_DIR:-build}}
runs=${RUNS:-5}
max_cycles=${VLT_MAX_CYCLES:-3000000}
[ -f "$build/CMakeCache.txt" ] || { echo "vlt_tile_bench: $build is not a configured build directory" >&2; exit 1; }
command -v verilator > /dev/null || { echo "vlt_tile_bench: Verilator is not installed; skipped"; exit 0; }
[ -x /usr/bin/time ] || { echo "vlt_tile_bench: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }

echo "Verilator tile model ($(verilator --version | awk '{print $1, $2}'))"
if [ "${VLT_BENCH_SKIP_BUILD:-0}" != 1 ]; then
  if [ -n "${VLT_BENCH_DIR:-}" ]; then
    scratch=$VLT_BENCH_DIR
    rm -rf "$scratch"
  else
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/tessera-vlt-bench.XXXXXX")
    trap 'rm -rf "$scratch"' EXIT
  fi
  # Configuring verilates every model once (verilate() runs Verilator at configure time).
  /usr/bin/time -f "%e %M" -o "$scratch.cfg" \
    cmake -S . -B "$scratch" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$scratch.cfg.log" 2>&1 \
    || { cat "$scratch.cfg.log" >&2; echo "vlt_tile_bench: configure failed" >&2; exit 1; }
  read -r cfg_s cfg_kb < "$scratch.cfg"
  /usr/bin/time -v -o "$scratch.time" \
    cmake --build "$scratch" -j"$(nproc)" --target tessera_vlt_units_model > "$scratch.build.log" 2>&1 \
    || { tail -n 30 "$scratch.build.log" >&2; echo "vlt_tile_bench: build failed" >&2; exit 1; }
  build_s=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + t[i]; print s}' "$scratch.time")
  build_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$scratch.time")
  steps=$(grep -c '^\[[0-9]*/[0-9]*\]' "$scratch.build.log" || true)
  reverilated=$(grep -q 'Generating .*Vtess_units' "$scratch.build.log" && echo ", Verilator ran again in the build" || echo "")
  printf "  configure (whole project, verilates the models): %.1f s wall, peak %.0f MB\n" "$cfg_s" "$((cfg_kb / 1024))"
  printf "  build tessera_vlt_units_model, -j%s: %.1f s wall (%s steps%s), peak %.0f MB (largest single process)\n" \
    "$(nproc)" "$build_s" "$steps" "$reverilated" "$((build_kb / 1024))"
  rm -f "$scratch.cfg" "$scratch.cfg.log" "$scratch.time" "$scratch.build.log"
fi

cmake --build "$build" --target tessera-vlt tessera-emu > /dev/null
vlt=$build/sim/vlt/tile/tessera-vlt
emu=$build/sim/emu/tessera-emu
[ -x "$vlt" ] || { echo "vlt_tile_bench: $vlt was not built (is Verilator found by CMake?)" >&2; exit 1; }

# Runs "$@" RUNS times; prints "insns cycles seconds" of the median run (by seconds), from
# the --stats line "... N instructions, M cycles (CPI c) in T s ...".
median_run() {
  local i out
  for ((i = 0; i < runs; ++i)); do
    out=$("$@" 2>&1 > /dev/null || true)
    sed -n 's/.* \([0-9]*\) instructions, \([0-9]*\) cycles .* in \([0-9.]*\) s.*/\1 \2 \3/p' <<< "$out" | head -1 \
      | grep . || { echo "vlt_tile_bench: no --stats line from $*: $out" >&2; exit 1; }
  done | sort -k3 -g | sed -n "$(((runs + 1) / 2))p"
}

echo "  speed, one tile, median of $runs runs (RTL: the first $max_cycles cycles; ISS: the whole ELF)"
printf "  %-10s %-6s %12s %12s %12s %6s\n" program model cycles cycles/s insns/s CPI
for name in int_bench fp_bench; do
  elf=$build/firmware/bench/$name.elf
  [ -f "$elf" ] || { echo "vlt_tile_bench: $elf missing (build the firmware: cmake --build $build)" >&2; exit 1; }
  read -r vi vc vs <<< "$(median_run "$vlt" --stats --max-cycles "$max_cycles" "$elf")"
  read -r ei ec es <<< "$(median_run "$emu" --stats "$elf")"
  [ -n "$vs" ] && [ -n "$es" ] || exit 1
  awk -v n="$name" -v vi="$vi" -v vc="$vc" -v vs="$vs" -v ei="$ei" -v ec="$ec" -v es="$es" 'BEGIN {
    printf "  %-10s %-6s %12d %10.3f M %10.3f M %6.2f\n", n, "RTL", vc, vc / vs / 1e6, vi / vs / 1e6, vc / vi
    printf "  %-10s %-6s %12d %10.3f M %10.3f M %6.2f\n", n, "ISS", ec, ec / es / 1e6, ei / es / 1e6, ec / ei
    printf "  %-10s ISS/RTL: %.0fx in cycles/s, %.0fx in insns/s\n", n, (ec / es) / (vc / vs), (ei / es) / (vi / vs)
  }'
done
