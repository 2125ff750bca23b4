#!/bin/sh
# heap_sizing.sh -- the heap follows the live set (docs/heap-sizing.md):
# one run of heap_phases.gcl, whose live set grows to 100000 cells and then
# falls to a few short lists, with --gc-log (or a JVM alias of it), and the
# capacity each collection's log line reports ("... of C KiB").
#
#   heap_sizing.sh follows VMRUN GC PROGRAM [VMRUN OPTIONS...]
#       the capacity is at most 2 MiB after the first collection (the
#       initial heap is 1 MiB, plus a 256 KiB young generation), its peak
#       at least three times its least (it grew with the live set), and it
#       ends at most a third of its peak (it shrank after the live set
#       fell); the program's output is complete.
#   heap_sizing.sh fixed VMRUN GC PROGRAM [VMRUN OPTIONS...]
#       every collection reports the same capacity (-Xms equal to -Xmx).
set -u
. "$(dirname "$0")/verdict.sh"
mode=$1 vmrun=$2 gc=$3 program=$4
shift 4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$vmrun" --gc="$gc" "$@" "$program" 100000 >"$scratch/out" 2>"$scratch/err"
status=$?
[ "$status" -eq 0 ] || complain "exit status $status"
grep -q '^grown: ' "$scratch/out" && grep -q '^churned: ' "$scratch/out" || complain "the program's output is incomplete"
sed -n 's/^\[gc [0-9]*\] .* of \([0-9.]*\) KiB, pause .*/\1/p' "$scratch/err" >"$scratch/capacities"
collections=$(wc -l <"$scratch/capacities")
[ "$collections" -ge 3 ] || complain "only $collections collections logged"
summary=$(awk 'NR == 1 { first = $1; min = $1; max = $1 }
               { if ($1 > max) max = $1; if ($1 < min) min = $1; last = $1 }
               END { printf "%d %d %d %d", first, min, max, last }' "$scratch/capacities")
set -- $summary
first=$1 min=$2 max=$3 last=$4
case "$mode" in
    follows)
        [ "$first" -le 2048 ] || complain "the heap is $first KiB after the first collection"
        [ "$max" -ge $((min * 3)) ] || complain "the heap grew only from $min KiB to $max KiB"
        [ "$last" -le $((max / 3)) ] || complain "the heap did not shrink: $max KiB at its peak, $last KiB at the end" ;;
    fixed)
        [ "$min" -eq "$max" ] || complain "a fixed heap's capacity changed: from $min KiB to $max KiB" ;;
    *) complain "unknown mode $mode" ;;
esac
verdict "$scratch/err" "$vmrun" --gc="$gc" "$program"
