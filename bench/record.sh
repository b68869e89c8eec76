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
