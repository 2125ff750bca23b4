#!/bin/sh
# lab_test.sh SOURCE_DIR WASM_BUILD_DIR VMRUN WORK_DIR
#
# The lab page (docs/lab.md): builds it with emscripten (the wasm preset,
# into WASM_BUILD_DIR), then drives it in headless Chromium against the
# native VMRUN (lab_in_chromium.py says what is checked).  Prints how long
# the build and the checks took.
set -eu
source=$1 build=$2 vmrun=$3 work=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v emcc >/dev/null 2>&1 || fail "emcc is not installed (.ci/install-deps installs emscripten)"
command -v chromium >/dev/null 2>&1 || fail "chromium is not installed (.ci/install-deps installs it)"
rm -rf "$work"
mkdir -p "$work"
started=$(date +%s)
cmake -S "$source" -B "$build" --preset wasm >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "configuring the wasm build"; }
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" >>"$work/build.log" 2>&1 ||
    { tail -n 40 "$work/build.log"; fail "building the lab page"; }
echo "lab page: built in $(($(date +%s) - started)) s"
python3 "$source/tests/lab/lab_in_chromium.py" "$build/bin/lab.html" "$vmrun" "$source" "$work"
