#!/bin/sh
# lint.sh VERILATOR WAIVERS TOP SOURCE... [-- TOP SOURCE...]...: Verilator --lint-only -Wall
# over each group (top module and its sources, packages first) with the waivers file; fails
# if any group has a warning. rtl.lint runs it over the tile and the network.
set -u
verilator=$1 waivers=$2
shift 2
status=0
while [ $# -gt 0 ]; do
  top=$1
  shift
  files=""
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do files="$files $1"; shift; done
  [ $# -gt 0 ] && shift
  # shellcheck disable=SC2086
  if "$verilator" --lint-only -Wall --top-module "$top" "$waivers" $files; then
    echo "lint: $top clean"
  else
    echo "lint: $top FAILED"; status=1
  fi
done
exit $status
