#!/usr/bin/env bash
# bench/fuzz.sh [RUNS] [NAME...]: the fuzzing campaign. Builds the libFuzzer harnesses
# (tests/fuzz, Clang 14 with ASan and UBSan) in build-fuzz/ and runs each for RUNS executions
# (default 1,000,000) from its seed corpus, then prints per harness: executions, execs/s,
# edge coverage (libFuzzer's cov: counter) and features (ft:), corpus size and crashes.
# A crash leaves its input as build-fuzz/fuzz-findings/NAME/crash-*; replay it with
# build-fuzz/tests/fuzz/fuzz_NAME FILE. docs/hardening.md.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
shift || true
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(elf exe control plan data npy onnx devd)
build=${BUILD_DIR:-build-fuzz}

mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 \
  -DCMAKE_CXX_COMPILER=clang++-14 -DTESSERA_FUZZ=ON -DTESSERA_RTL=OFF > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target $(printf 'fuzz_%s ' "${names[@]}") || exit 1

printf '%-8s %12s %10s %8s %8s %8s %8s %8s\n' harness execs secs execs/s cov ft corpus crashes
for n in "${names[@]}"; do
  corpus="$build/fuzz-corpus/$n" findings="$build/fuzz-findings/$n" log="$build/fuzz-$n.log"
  mkdir -p "$corpus" "$findings"
  start=$(date +%s.%N)
  "$build/tests/fuzz/fuzz_$n" -runs="$runs" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "tests/fuzz/seeds/$n" > "$log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  crashes=$(find "$findings" -type f | wc -l)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  # (parenthesized: a bare `>` after printf's arguments is awk's output redirection)
  rate=$(awk -v n="${execs:-0}" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
  printf '%-8s %12s %10s %8s %8s %8s %8s %8s\n' "$n" "${execs:-?}" "$secs" "$rate" "${cov:-?}" "${ft:-?}" \
    "$(find "$corpus" -type f | wc -l)" "$crashes"
  [ $rc -eq 0 ] || { echo "  $n: exit status $rc; the end of $log:"; tail -30 "$log" | sed 's/^/    /'; }
done
