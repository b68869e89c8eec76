#!/usr/bin/env bash
# install_and_build_example.sh BUILD_DIR EXAMPLE_DIR WORK_DIR: `cmake --install BUILD_DIR`
# into WORK_DIR/prefix, then the example configured with only that prefix on
# CMAKE_PREFIX_PATH, built and run; its executable is checked by `tessera info` from the
# same prefix.
set -euo pipefail
build=$1 example=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log" || { cat "$work/install.log"; exit 1; }
cmake -S "$example" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build"
"$work/build/small_cnn" "$work/small_cnn.tsx"
"$work/prefix/bin/tessera" info "$work/small_cnn.tsx" > "$work/info.txt"
head -3 "$work/info.txt"
