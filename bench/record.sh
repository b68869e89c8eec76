# Sourced by the benches: `record BENCH FIGURE UNIT VALUE ANCHOR ANCHOR_VALUE SENSE [GOAL]`
# appends one tab-separated record to $BENCH_RECORDS when it is set (scripts/bench turns
# them into its table of ratios and its JSON file). SENSE says which way is better: "rate"
# (higher) or "time" (lower). GOAL: the speed ratio to the anchor wanted (issue 20), if any.
# A figure that could not be measured is recorded as "n/a".
record() {
  [ -n "${BENCH_RECORDS:-}" ] || return 0
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-n/a}" "$5" "${6:-n/a}" "$7" "${8:-}" >> "$BENCH_RECORDS"
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
# `on_cpus THREADS COMMAND...`: runs COMMAND, a one-thread run on CPU BENCH_CPU (default 0)
# alone (taskset), so that Tessera and its anchors run on the same core: the cores of a
# shared virtual machine differ at times (docs/speed.md, "The benchmarks": ResNet-18 in
# native mode took 0.038 s on one of this machine's two and 0.052 s on the other, ONNX
# Runtime 0.020 and 0.022 s), and a run left to the scheduler lands on either. Two threads
# or more: as given.
on_cpus() {
  local threads=$1
  shift
  if [ "$threads" = 1 ] && command -v taskset > /dev/null; then
    taskset -c "${BENCH_CPU:-0}" "$@"
  else
    "$@"
  fi
}
# `run_median RUNS REPORT X COMMAND...`: runs `COMMAND... --input x=X' --program infer,... --report
# REPORT` (a `tessera run`; output discarded) once: program infer RUNS + 1 times in one process, X'
# holding X RUNS + 1 times. Prints the median wall time in seconds of the runs after the first,
# which are warm as ONNX Runtime's and PyTorch's timed runs are after their warm-up run (the
# first also takes the page faults of the tiles' first writes and the exchanges' first checks).
# A stream output holds RUNS + 1 runs' transfers, the first run's first.
run_median() {
  local runs=$1 report=$2 x=$3
  shift 3
  /usr/bin/python3 -c "import numpy as np, sys; np.save(sys.argv[2], np.concatenate([np.load(sys.argv[1])] * int(sys.argv[3])))" \
    "$x" "$report.x.npy" $((runs + 1))
  "$@" --input x="$report.x.npy" --program "$(yes infer | head -n $((runs + 1)) | paste -sd, -)" --report "$report" \
    > /dev/null 2>&1
  rm -f "$report.x.npy"
  /usr/bin/python3 -c "import json, sys; [print(r['wall_seconds']) for r in json.load(open(sys.argv[1]))['runs'][1:]]" \
    "$report" | median
}
# `compare_plans TITLE THREADS WORK [IMAGES]`: the table rows of one thread count from WORK's
# tessera_machine.T, tessera_host.T, ort.T and torch.T (medians in seconds): each one's time
# (and IMAGES / time when given) and its time over ONNX Runtime's and PyTorch's; then both
# plans recorded against both anchors, with issue 20's goal (at most 1.5x ONNX Runtime's
# time, a speed ratio of 1/1.5) for the executable planned for native mode (--plan host).
compare_plans() {
  local title=$1 t=$2 work=$3 images=${4:-} os ps s who plan
  os=$(cat "$work/ort.$t") ps=$(cat "$work/torch.$t")
  for who in tessera_machine tessera_host ort torch; do
    s=$(cat "$work/$who.$t")
    awk -v w="${who/_/, plan }" -v t="$t" -v s="$s" -v os="$os" -v ps="$ps" -v n="$images" 'BEGIN {
      printf "%-28s %8s %12.4f", w, t, s; if (n != "") printf " %12.0f", n / s
      printf " %11.1fx %11.1fx\n", s / os, s / ps }'
  done
  for plan in machine host; do
    s=$(cat "$work/tessera_$plan.$t")
    record "$title" "emu-native, $t thread(s), --plan $plan" s "$s" "ONNX Runtime, $t thread(s)" "$os" time \
      "$([ $plan = host ] && echo 0.667)"
    record "$title" "emu-native, $t thread(s), --plan $plan" s "$s" "PyTorch, $t thread(s)" "$ps" time
  done
}
