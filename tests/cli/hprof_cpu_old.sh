#!/bin/sh
# hprof_cpu_old.sh -- hprof's cpu=old counts every call by caller, under
# every collector (docs/hprof.md).
#
#   hprof_cpu_old.sh VMRUN FIB NULL_REFERENCE COLLECTOR...
#
# Under each collector, with --vmpi-strict (docs/contracts.md):
#   - FIB 12: the prof lines end the file, after their header "count callee
#     caller time", and are exactly, times left out:
#       464 fib.fib fib.fib   (calls(12) - 1: every call but the first)
#       1 fib.main <unknown caller>
#       1 fib.fib fib.main
#     each with a time in whole milliseconds; no CPU table, no TRACE;
#   - NULL_REFERENCE, which stops with a runtime error inside sum: main and
#     sum, still on the stack, are counted once each.
set -u
vmrun=$1 fib=$2 null_reference=$3
shift 3
fail() { echo "FAIL: $*"; exit 1; }

# The prof lines of $1, times left out, after checking the header and times.
prof_lines() {
    awk -v file="$1" '
        /^count callee caller time$/ { on = 1; next }
        on && !/^[0-9]+ [^ ]+ [^ ]+( caller>)? [0-9]+$/ { print "FAIL: " file ": not a prof line: " $0 > "/dev/stderr"; exit 1 }
        on { $NF = ""; sub(/ $/, ""); print }
        END { if (!on) { print "FAIL: " file ": no prof header" > "/dev/stderr"; exit 1 } }' "$1"
}

expected_fib="464 fib.fib fib.fib
1 fib.main <unknown caller>
1 fib.fib fib.main"
expected_null="1 null_reference.main <unknown caller>
1 null_reference.sum null_reference.main"
for gc in "$@"; do
    $vmrun --gc="$gc" --vmpi-strict -agentlib:hprof=cpu=old,file="fib_$gc.txt" "$fib" 12 >"fib_$gc.out" 2>"fib_$gc.err" ||
        fail "$gc: fib failed: $(tail -n 3 "fib_$gc.err")"
    lines=$(prof_lines "fib_$gc.txt") || exit 1
    [ "$lines" = "$expected_fib" ] || fail "$gc: fib(12)'s prof lines are
$lines"
    grep -q '^TRACE \|^CPU ' "fib_$gc.txt" && fail "$gc: cpu=old wrote traces or a CPU table"

    $vmrun --gc="$gc" --vmpi-strict -agentlib:hprof=cpu=old,file="null_$gc.txt" "$null_reference" \
        >"null_$gc.out" 2>"null_$gc.err" && fail "$gc: null_reference did not fail"
    grep -q 'null reference' "null_$gc.err" || fail "$gc: no runtime error: $(tail -n 3 "null_$gc.err")"
    lines=$(prof_lines "null_$gc.txt") || exit 1
    [ "$lines" = "$expected_null" ] || fail "$gc: the calls on the stack at the error are
$lines"
done
echo "$# collectors: fib(12) and null_reference counted by caller"
