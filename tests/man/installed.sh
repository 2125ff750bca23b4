#!/bin/sh
# installed.sh -- `cmake --install` lays out a working gclab: the tools in
# bin/, the bundled agents in lib/gclab/ (where vmrun looks for them), the
# agent header, and a manual page per tool in share/man/man1/.
#
#   installed.sh CMAKE BUILD_DIR PREFIX PROGRAM
#
# CMAKE is the cmake that configured BUILD_DIR.  PREFIX is emptied first.  PROGRAM is run by the installed vmrun with the
# check agent, which vmrun must find beside itself.
set -u
cmake=$1 build=$2 prefix=$3 program=$4
rm -rf "$prefix"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install failed"; exit 1; }
failed=0
for file in include/gclab/vmpi.h lib/gclab/libcheck.so lib/gclab/libtrace.so; do
    [ -f "$prefix/$file" ] || { echo "FAIL: $file not installed"; failed=1; }
done
for tool in vmc vmas vmdis vmrun; do
    [ -x "$prefix/bin/$tool" ] || { echo "FAIL: bin/$tool not installed"; failed=1; }
    [ -f "$prefix/share/man/man1/$tool.1" ] || { echo "FAIL: share/man/man1/$tool.1 not installed"; failed=1; }
done
output=$("$prefix/bin/vmrun" -agentlib:check "$program" 2>&1 >/dev/null)
case "$output" in
    "check: ok: "*) ;;
    *) echo "FAIL: the installed vmrun with -agentlib:check said: $output"; failed=1 ;;
esac
exit $failed
