#!/bin/sh
# hprof_cpu_times.sh -- hprof's cpu=times counts every call, under every
# collector (docs/hprof.md).
#
#   hprof_cpu_times.sh VMRUN FIB BINARY_TREES NULL_REFERENCE COLLECTOR...
#
# Under each collector, with --vmpi-strict (docs/contracts.md):
#   - FIB 12 with cpu=times: fib's calls summed over its rows equal
#     calls(n) = calls(n-1) + calls(n-2) + 1, main's are 1;
#   - BINARY_TREES 6 with cpu=times,heap=sites: both tables; Tree.make's
#     calls equal the Tree objects allocated (SITES) and Tree.check's the
#     sum of the "check:" figures the program prints;
#   - NULL_REFERENCE, which stops with a runtime error inside sum: main and
#     sum, still on the stack, are counted once each.
# Every CPU TIME table is checked for the manual's layout (cpu_rows,
# hprof_cpu_rows.sh).  Times themselves are never checked.
set -u
vmrun=$1 fib=$2 trees=$3 null_reference=$4
shift 4
fail() { echo "FAIL: $*"; exit 1; }

. "$(dirname "$0")/hprof_cpu_rows.sh"

count_of() { awk -v m="$1" '$1 == m { print $2 }' "$2"; }

for gc in "$@"; do
    run() { # NAME PROGRAM ARG OPTIONS
        name=$1 program=$2 arg=$3 options=$4
        $vmrun --gc="$gc" --vmpi-strict -agentlib:hprof=$options,cutoff=0,file="$name.txt" \
            "$program" $arg >"$name.out" 2>"$name.err"
    }

    run "fib_$gc" "$fib" 12 cpu=times || fail "$gc: fib failed: $(tail -n 3 "fib_$gc.err")"
    grep -q '^SITES BEGIN' "fib_$gc.txt" && fail "$gc: cpu=times alone wrote a SITES table"
    cpu_rows "CPU TIME (ms)" "fib_$gc.txt" > "fib_$gc.counts" || exit 1
    expected=$(awk 'BEGIN { a = 1; b = 1; for (n = 2; n <= 12; n++) { c = a + b + 1; a = b; b = c }; print b }')
    [ "$(count_of fib.fib "fib_$gc.counts")" = "$expected" ] ||
        fail "$gc: fib(12) made $expected calls to fib, the table counts $(count_of fib.fib "fib_$gc.counts")"
    [ "$(count_of fib.main "fib_$gc.counts")" = 1 ] || fail "$gc: main is not counted once"

    run "trees_$gc" "$trees" 6 cpu=times,heap=sites,depth=6 || fail "$gc: binary_trees failed: $(tail -n 3 "trees_$gc.err")"
    grep -q "the VM's heap agrees" "trees_$gc.err" || fail "$gc: $(grep hprof "trees_$gc.err")"
    cpu_rows "CPU TIME (ms)" "trees_$gc.txt" > "trees_$gc.counts" || exit 1
    trees_allocated=$(awk '/^SITES BEGIN/ { s = 1 } /^SITES END/ { s = 0 } s && $9 == "Tree" { n += $7 } END { print n + 0 }' "trees_$gc.txt")
    [ "$trees_allocated" -gt 0 ] || fail "$gc: no Tree in the SITES table"
    [ "$(count_of Tree.make "trees_$gc.counts")" = "$trees_allocated" ] ||
        fail "$gc: $trees_allocated Trees allocated, Tree.make counted $(count_of Tree.make "trees_$gc.counts") times"
    checked=$(awk -F'check: ' 'NF > 1 { n += $2 } END { print n }' "trees_$gc.out")
    [ "$(count_of Tree.check "trees_$gc.counts")" = "$checked" ] ||
        fail "$gc: $checked nodes checked, Tree.check counted $(count_of Tree.check "trees_$gc.counts") times"

    run "null_$gc" "$null_reference" "" cpu=times && fail "$gc: null_reference did not fail"
    grep -q 'null reference' "null_$gc.err" || fail "$gc: no runtime error: $(tail -n 3 "null_$gc.err")"
    cpu_rows "CPU TIME (ms)" "null_$gc.txt" > "null_$gc.counts" || exit 1
    [ "$(count_of null_reference.main "null_$gc.counts")" = 1 ] && [ "$(count_of null_reference.sum "null_$gc.counts")" = 1 ] ||
        fail "$gc: the calls on the stack at the error are not counted once each: $(cat "null_$gc.counts")"
done
echo "$# collectors: fib(12) $expected calls, binary_trees $trees_allocated Tree.make and $checked Tree.check calls"
