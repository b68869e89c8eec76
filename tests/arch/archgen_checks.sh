#!/bin/sh
# archgen_checks.sh PYTHON SOURCE_DIR: archgen.py renders the tree's arch/, and refuses each
# broken copy below with the message given (a grep pattern). Prints each case.
set -u
py=$1 src=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
"$py" "$src/arch/gen/archgen.py" "$src/arch" "$tmp/out" || { echo "FAIL: the tree's arch/ does not render"; exit 1; }
for f in tess_flit_pkg.sv tess_target_alveo_u250_pkg.sv; do
  [ -f "$tmp/out/rtl/$f" ] || { echo "FAIL: no $f"; status=1; }
done
grep -q "UltraRam = 1'b1" "$tmp/out/rtl/tess_target_alveo_u250_pkg.sv" || { echo "FAIL: alveo-u250 not in UltraRAM"; status=1; }
grep -q "UltraRam = 1'b0" "$tmp/out/rtl/tess_target_tiny_pkg.sv" || { echo "FAIL: tiny not in block RAM"; status=1; }

# case NAME FILE SED-EXPRESSION EXPECTED-MESSAGE: a copy of arch/ with FILE edited must fail so.
case_() {
  name=$1 file=$2 expr=$3 want=$4
  rm -rf "$tmp/arch" && cp -r "$src/arch" "$tmp/arch"
  sed -i "$expr" "$tmp/arch/$file"
  if out=$("$py" "$tmp/arch/gen/archgen.py" "$tmp/arch" "$tmp/bad" 2>&1); then
    echo "FAIL $name: archgen accepted it"; status=1
  elif printf '%s\n' "$out" | grep -q -- "$want"; then
    echo "ok   $name: $out"
  else
    echo "FAIL $name: expected '$want', got: $out"; status=1
  fi
}
case_ unknown_sram targets/tiny.toml 's/^sram = "block"/sram = "bram"/' 'tiny.toml: sram must be "block" or "ultra"'
case_ no_sram targets/small.toml '/^sram = /d' 'small.toml: sram must be'
case_ uram_partial targets/alveo-u250.toml 's/^sram_bytes = .*/sram_bytes = 376832/' 'alveo-u250.toml: sram_bytes 376832 is not a whole number of URAM288'
case_ uram_budget targets/alveo-u280.toml 's/^sram_bytes = .*/sram_bytes = 262144/' 'alveo-u280.toml: sram_bytes must be 393216 (12 URAM288 per tile'
case_ fpga_key targets/alveo-u250.toml '/^uram288 = /d' 'alveo-u250.toml: \[fpga\] lacks uram288'
case_ flit_field flit.toml 's/^name = "kind"/name = "type"/' 'flit.toml: the fields must be'
case_ flit_width flit.toml '/^name = "dst"/{n;s/bits = 11/bits = 12/}' 'flit.toml: the flit must be 64 bits (one 8-byte beat), not 65'
case_ flit_reply flit.toml '/^name = "data"/{n;s/bits = 32/bits = 28/};/^name = "addr"/{n;s/bits = 18/bits = 22/}' "flit.toml: a read request's data must hold its reply's node and word address"
case_ flit_kind flit.toml 's/^code = 3/code = 8/' 'flit.toml: kind RESERVED code 8 is out of range'
case_ flit_nodes targets/ipu-mk2.toml 's/^tiles = 1472/tiles = 2044/;s/^mesh = .*/mesh = [44, 47]/' 'ipu-mk2.toml: 2052 nodes (tiles and host nodes) do not fit the flit.s 11-bit dst'
case_ flit_sram targets/ipu-mk2.toml 's/^sram_bytes = .*/sram_bytes = 1052672/' 'ipu-mk2.toml: 263168 SRAM words do not fit the flit.s 18-bit addr'
exit $status
