#!/bin/sh
# hls.xclbin_files_<card>: scripts/xclbin generates the card's files (no Vitis needed), an
# independent checker reads them, and with `lint` Verilator lints the generated wrapper with
# the machine's RTL under -Wall, any warning failing it (the kernel elaborates for the target;
# about a CPU minute for 80 tiles).
#   xclbin_files.sh SOURCE_DIR BUILD_DIR TARGET OUT_DIR [lint]
set -eu
src=$1 build=$2 target=$3 out=$4 lint=${5:-}
"$src/scripts/xclbin" --target "$target" --platform test_platform --build-dir "$build" --out "$out" --generate-only
/usr/bin/python3 "$src/hls/tests/check_xclbin.py" "$src" "$target" "$out"
if [ "$lint" = lint ] && command -v verilator >/dev/null 2>&1; then
  incs=$(sed 's/^/-I/' "$build/xclbin/rtl_include_dirs.txt" | tr '\n' ' ')
  pkg="$build/arch/generated/rtl/tess_target_$(echo "$target" | tr - _)_pkg.sv"
  # shellcheck disable=SC2046
  verilator --lint-only -Wall $incs --top-module tess_card \
    "$src/rtl/lint.vlt" "$src/hls/tests/tess_card.vlt" "$pkg" $(cat "$build/xclbin/rtl_sources.txt") "$out/tess_card.sv"
  echo "verilator: tess_card for $target elaborates"
fi
