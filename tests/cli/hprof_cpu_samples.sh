#!/bin/sh
# hprof_cpu_samples.sh -- hprof's cpu=samples samples the running program,
# under every collector (docs/hprof.md).
#
#   hprof_cpu_samples.sh VMRUN FIB BINARY_TREES COLLECTOR...
#
# Under each collector, with --vmpi-strict (docs/contracts.md), a sample
# every millisecond:
#   - FIB 34 (most of a second of calls and nothing else) with cpu=samples:
#     a CPU SAMPLES table in the manual's layout (cpu_rows,
#     hprof_cpu_rows.sh) whose total is the sum of its counts and not 0, and
#     whose top row is fib.fib, the method the program spends its time in;
#   - BINARY_TREES 12 in a 4 MiB heap, so that samples are asked for while
#     it collects, with cpu=samples,heap=sites: the SITES table agrees with
#     the VM's heap, the CPU SAMPLES table comes after it, and the two
#     share one set of TRACE records, each written once.
# How many samples a run gets depends on the machine: only "not 0" is
# checked.
set -u
vmrun=$1 fib=$2 trees=$3
shift 3
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/hprof_cpu_rows.sh"

# The total in the BEGIN line of $1, and the sum of its rows' counts.
total_of() { sed -n 's/^CPU SAMPLES BEGIN (total = \([0-9]*\)) .*/\1/p' "$1"; }
counted_in() { awk '/^CPU SAMPLES BEGIN/ { t = 1; next } /^CPU SAMPLES END/ { t = 0 } t && $1 ~ /^[0-9]+$/ { n += $4 } END { print n + 0 }' "$1"; }

for gc in "$@"; do
    run() { # NAME PROGRAM ARG OPTIONS [VMRUN OPTIONS]
        name=$1 program=$2 arg=$3 options=$4
        shift 4
        $vmrun --gc="$gc" --vmpi-strict "$@" -agentlib:hprof=$options,interval=1,cutoff=0,file="$name.txt" \
            "$program" $arg >"$name.out" 2>"$name.err"
    }

    run "fib_$gc" "$fib" 34 cpu=samples || fail "$gc: fib failed: $(tail -n 3 "fib_$gc.err")"
    grep -q '^SITES BEGIN' "fib_$gc.txt" && fail "$gc: cpu=samples alone wrote a SITES table"
    cpu_rows "CPU SAMPLES" "fib_$gc.txt" > "fib_$gc.counts" || exit 1
    total=$(total_of "fib_$gc.txt")
    [ "$total" -gt 0 ] || fail "$gc: no samples"
    [ "$(counted_in "fib_$gc.txt")" = "$total" ] || fail "$gc: the rows count $(counted_in "fib_$gc.txt") samples, the total says $total"
    top=$(awk '/^CPU SAMPLES BEGIN/ { t = 1 } t && $1 == "1" { print $6; exit }' "fib_$gc.txt")
    [ "$top" = fib.fib ] || fail "$gc: the top sample is in $top, not fib.fib"

    run "trees_$gc" "$trees" 12 cpu=samples,heap=sites,depth=6 --heap=4m ||
        fail "$gc: binary_trees failed: $(tail -n 3 "trees_$gc.err")"
    grep -q "the VM's heap agrees" "trees_$gc.err" || fail "$gc: $(grep hprof "trees_$gc.err")"
    cpu_rows "CPU SAMPLES" "trees_$gc.txt" > "trees_$gc.counts" || exit 1
    awk '/^SITES END/ { s = NR } /^CPU SAMPLES BEGIN/ { c = NR } END { exit !(s && c > s) }' "trees_$gc.txt" ||
        fail "$gc: the CPU SAMPLES table does not follow the SITES table"
    [ -z "$(grep '^TRACE ' "trees_$gc.txt" | sort | uniq -d)" ] || fail "$gc: a TRACE is written twice"
    trees_total=$(total_of "trees_$gc.txt")
done
echo "$# collectors: fib(34) $total samples, binary_trees $trees_total samples (the last collector's)"
