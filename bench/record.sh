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
# `run_median RUNS REPORT COMMAND...`: runs `COMMAND... --report REPORT` (a `tessera run`) RUNS times
# (output discarded) and prints the median of the run reports' wall time in seconds.
run_median() {
  local runs=$1 report=$2
  shift 2
  for _ in $(seq "$runs"); do
    "$@" --report "$report" > /dev/null 2>&1
    sed -n 's/.*"wall_seconds": \([0-9.]*\).*/\1/p' "$report"
  done | median
}
