#!/bin/sh
# installed.sh -- `cmake --install` lays out a working gclab: the tools in
# bin/, the bundled agents in lib/gclab/ (where vmrun looks for them), the
# agent header and its pkg-config file, and a manual page per program in
# share/man/man1/.
#
#   installed.sh CMAKE BUILD_DIR PREFIX PROGRAM
#
# CMAKE is the cmake that configured BUILD_DIR.  PREFIX is emptied first.
# PROGRAM is run by the installed vmrun with each bundled agent, which vmrun
# must find beside itself by name.  pkg-config, pointed at PREFIX, must give
# the header's directory and the version vmrun reports.
set -u
cmake=$1 build=$2 prefix=$3 program=$4
rm -rf "$prefix"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install failed"; exit 1; }
failed=0
for file in include/gclab/vmpi.h lib/pkgconfig/vmpi.pc lib/gclab/libcheck.so lib/gclab/libtrace.so \
    lib/gclab/libhprof.so; do
    [ -f "$prefix/$file" ] || { echo "FAIL: $file not installed"; failed=1; }
done
for tool in vmc vmas vmdis vmrun gccompare heapview vmpi-conform vmpi-trace2json; do
    [ -x "$prefix/bin/$tool" ] || { echo "FAIL: bin/$tool not installed"; failed=1; }
    [ -f "$prefix/share/man/man1/$tool.1" ] || { echo "FAIL: share/man/man1/$tool.1 not installed"; failed=1; }
done
output=$("$prefix/bin/vmrun" -agentlib:check "$program" 2>&1 >/dev/null)
case "$output" in
    "check: ok: "*) ;;
    *) echo "FAIL: the installed vmrun with -agentlib:check said: $output"; failed=1 ;;
esac
"$prefix/bin/vmrun" -agentlib:trace=file="$prefix/trace.jsonl" "$program" >/dev/null 2>&1
head -n 1 "$prefix/trace.jsonl" 2>/dev/null | grep -q '^{"format":"gclab-vmpi-trace","version":' ||
    { echo "FAIL: the installed vmrun with -agentlib:trace wrote no trace"; failed=1; }
"$prefix/bin/vmrun" -agentlib:hprof=heap=sites,file="$prefix/hprof.txt" "$program" >/dev/null 2>&1
grep -q '^SITES BEGIN' "$prefix/hprof.txt" 2>/dev/null ||
    { echo "FAIL: the installed vmrun with -agentlib:hprof wrote no SITES table"; failed=1; }

# pkg-config finds the installed tree, wherever it is (vmpi.pc is relative to itself).
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
include_dir=$(pkg-config --cflags vmpi | sed -n 's/^-I\([^ ]*\) *$/\1/p')
[ -n "$include_dir" ] && [ -f "$include_dir/vmpi.h" ] &&
    [ "$(cd "$include_dir" && pwd -P)" = "$(cd "$prefix/include/gclab" && pwd -P)" ] ||
    { echo "FAIL: pkg-config --cflags vmpi gave '$(pkg-config --cflags vmpi)', not $prefix/include/gclab"; failed=1; }
[ -z "$(pkg-config --libs vmpi)" ] || { echo "FAIL: an agent links nothing, but pkg-config --libs vmpi gave '$(pkg-config --libs vmpi)'"; failed=1; }
version=$("$prefix/bin/vmrun" --version | sed -n 's/^vmrun (gclab) //p')
[ "$(pkg-config --modversion vmpi)" = "$version" ] ||
    { echo "FAIL: pkg-config --modversion vmpi gave '$(pkg-config --modversion vmpi)', vmrun --version '$version'"; failed=1; }
exit $failed
