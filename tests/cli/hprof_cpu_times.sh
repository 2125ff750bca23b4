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
# Every CPU TIME table is checked for the manual's layout: the BEGIN line
# with its total, the column header, ranks 1..n by self time, self
# percentages that add up to 100 (to their rounding) and accum their
# running sum, and traces that are TRACE records whose innermost frame is the
# row's method.  Times themselves are never checked.
set -u
vmrun=$1 fib=$2 trees=$3 null_reference=$4
shift 4
fail() { echo "FAIL: $*"; exit 1; }

# The CPU TIME table of $1, checked; prints "method count" per row.
cpu_rows() {
    grep -Eq '^CPU TIME \(ms\) BEGIN \(total = [0-9]+\) ' "$1" || fail "$1: no CPU TIME BEGIN line"
    grep -q '^CPU TIME (ms) END$' "$1" || fail "$1: no CPU TIME END line"
    grep -q '^rank   self  accum   count trace method$' "$1" || fail "$1: no column header"
    awk -v file="$1" '
        function bad(why) { print "FAIL: " file ": " why > "/dev/stderr"; failed = 1; exit 1 }
        /^TRACE /         { trace = $2; sub(":", "", trace); first[trace] = ""; next }
        /^\t/             { if (first[trace] == "") { f = $1; sub(/\(.*/, "", f); first[trace] = f }; next }
        /^CPU TIME \(ms\) BEGIN/ { table = 1; next }
        /^CPU TIME \(ms\) END/   { table = 0; next }
        table && $1 ~ /^[0-9]+$/ {
            if ($1 != ++rank) bad("rank " $1 " where " rank " was due")
            self = $2; sub("%", "", self); self += 0; accum = $3; sub("%", "", accum); accum += 0
            total += self
            step = accum - last_accum
            if (step - self > 0.011 || self - step > 0.011) bad("accum " accum " is not " last_accum " + " self)
            if (rank > 1 && self > last_self) bad("rank " rank " has more self time than rank " rank - 1)
            last_accum = accum; last_self = self
            if (!($5 in first)) bad("trace " $5 " is not a TRACE record")
            if (first[$5] != $6) bad("trace " $5 " starts at " first[$5] ", the row says " $6)
            count[$6] += $4
        }
        END {
            if (failed) exit 1
            if (rank == 0) bad("no rows")
            if (last_accum < 99.99 || last_accum > 100.01) bad("accum ends at " last_accum)
            slack = 0.005 * rank + 0.01 # each self is rounded to 0.01
            if (total < 100 - slack || total > 100 + slack) bad("self percentages add up to " total)
            for (m in count) print m, count[m]
        }' "$1" || exit 1
}

count_of() { awk -v m="$1" '$1 == m { print $2 }' "$2"; }

for gc in "$@"; do
    run() { # NAME PROGRAM ARG OPTIONS
        name=$1 program=$2 arg=$3 options=$4
        $vmrun --gc="$gc" --vmpi-strict -agentlib:hprof=$options,cutoff=0,file="$name.txt" \
            "$program" $arg >"$name.out" 2>"$name.err"
    }

    run "fib_$gc" "$fib" 12 cpu=times || fail "$gc: fib failed: $(tail -n 3 "fib_$gc.err")"
    grep -q '^SITES BEGIN' "fib_$gc.txt" && fail "$gc: cpu=times alone wrote a SITES table"
    cpu_rows "fib_$gc.txt" > "fib_$gc.counts" || exit 1
    expected=$(awk 'BEGIN { a = 1; b = 1; for (n = 2; n <= 12; n++) { c = a + b + 1; a = b; b = c }; print b }')
    [ "$(count_of fib.fib "fib_$gc.counts")" = "$expected" ] ||
        fail "$gc: fib(12) made $expected calls to fib, the table counts $(count_of fib.fib "fib_$gc.counts")"
    [ "$(count_of fib.main "fib_$gc.counts")" = 1 ] || fail "$gc: main is not counted once"

    run "trees_$gc" "$trees" 6 cpu=times,heap=sites,depth=6 || fail "$gc: binary_trees failed: $(tail -n 3 "trees_$gc.err")"
    grep -q "the VM's heap agrees" "trees_$gc.err" || fail "$gc: $(grep hprof "trees_$gc.err")"
    cpu_rows "trees_$gc.txt" > "trees_$gc.counts" || exit 1
    trees_allocated=$(awk '/^SITES BEGIN/ { s = 1 } /^SITES END/ { s = 0 } s && $9 == "Tree" { n += $7 } END { print n + 0 }' "trees_$gc.txt")
    [ "$trees_allocated" -gt 0 ] || fail "$gc: no Tree in the SITES table"
    [ "$(count_of Tree.make "trees_$gc.counts")" = "$trees_allocated" ] ||
        fail "$gc: $trees_allocated Trees allocated, Tree.make counted $(count_of Tree.make "trees_$gc.counts") times"
    checked=$(awk -F'check: ' 'NF > 1 { n += $2 } END { print n }' "trees_$gc.out")
    [ "$(count_of Tree.check "trees_$gc.counts")" = "$checked" ] ||
        fail "$gc: $checked nodes checked, Tree.check counted $(count_of Tree.check "trees_$gc.counts") times"

    run "null_$gc" "$null_reference" "" cpu=times && fail "$gc: null_reference did not fail"
    grep -q 'null reference' "null_$gc.err" || fail "$gc: no runtime error: $(tail -n 3 "null_$gc.err")"
    cpu_rows "null_$gc.txt" > "null_$gc.counts" || exit 1
    [ "$(count_of null_reference.main "null_$gc.counts")" = 1 ] && [ "$(count_of null_reference.sum "null_$gc.counts")" = 1 ] ||
        fail "$gc: the calls on the stack at the error are not counted once each: $(cat "null_$gc.counts")"
done
echo "$# collectors: fib(12) $expected calls, binary_trees $trees_allocated Tree.make and $checked Tree.check calls"
