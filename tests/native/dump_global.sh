#!/bin/sh
# dump_global.sh -- a native's global reference is a root, and heap dumps
# report it as JNI_GLOBAL: hprof's dump of dump_global.gcl has exactly one
# "JNI global ref" root, and it names the Node the reference keeps.
#
#   dump_global.sh VMRUN PROGRAM GC
set -u
vmrun=$1 program=$2 gc=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$vmrun" --gc="$gc" --gc-stress -agentlib:hprof=heap=dump,file="$scratch/dump.txt" "$program" 2>"$scratch/err" ||
    { echo "FAIL: vmrun: $(cat "$scratch/err")"; exit 1; }
roots=$(sed -n 's/^ROOT \([0-9a-f]*\) (kind=<JNI global ref>, id=[0-9a-f]*, trace=0)$/\1/p' "$scratch/dump.txt")
[ "$(printf '%s\n' "$roots" | grep -c .)" -eq 1 ] || { echo "FAIL: expected one JNI global root, got: $roots"; exit 1; }
grep -q "^OBJ $roots (sz=[0-9]*, trace=[0-9]*, class=Node@" "$scratch/dump.txt" ||
    { echo "FAIL: the JNI global root $roots is not a Node in the dump"; exit 1; }
echo "ok: the global reference's Node $roots is a JNI global root"
