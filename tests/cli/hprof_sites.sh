#!/bin/sh
# hprof_sites.sh -- hprof's heap=sites is right under every collector.
#
#   hprof_sites.sh VMRUN PROGRAM ARG COLLECTOR...
#
# Runs PROGRAM ARG with -agentlib:hprof=heap=sites,cutoff=0 under each
# collector, in a heap small enough that each collects (and moves, where it
# moves) many times, and checks that
#   - every run succeeds and collects at least twice (--gc-log),
#   - the agent's live objects and bytes at exit equal the VM's own heap
#     (hprof checks its table against a level-0 HEAP_DUMP: "agrees"),
#   - the SITES table lists, per site (its trace's frames and the class),
#     the same allocated bytes and objects under every collector.
set -u
vmrun=$1 program=$2 arg=$3
shift 3
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/same_as_first.sh"
for gc in "$@"; do
    $vmrun --gc="$gc" --gc-log --heap=512k --young=64k \
        -agentlib:hprof=heap=sites,cutoff=0,depth=6,file="sites_$gc.txt" \
        "$program" "$arg" >/dev/null 2>"sites_$gc.err" || fail "$gc: vmrun failed: $(tail -n 3 "sites_$gc.err")"
    collections=$(grep -c '^\[gc ' "sites_$gc.err")
    [ "$collections" -ge 2 ] || fail "$gc: only $collections collections: the heap is too big for this test"
    grep -q "the VM's heap agrees" "sites_$gc.err" || fail "$gc: $(grep hprof "sites_$gc.err")"
    # One line per site: its trace's frames, its class, alloc'ed bytes and objs.
    awk '/^TRACE /     { trace = $2; frames[trace] = ""; next }
         /^\t/         { frames[trace] = frames[trace] $1 " "; next }
         /^SITES BEGIN/ { sites = 1; next }
         /^SITES END/   { sites = 0 }
         sites && $1 ~ /^[0-9]+$/ { print frames[$8 ":"] "| " $9, $6, $7 }' \
        "sites_$gc.txt" | sort > "sites_$gc.alloc"
    [ -s "sites_$gc.alloc" ] || fail "$gc: no SITES rows in sites_$gc.txt"
    same_as_first "$gc" "sites_$gc.alloc" "allocated totals per site differ"
done
echo "$# collectors: $(wc -l < "sites_$first.alloc") sites, the same allocated totals"
