#!/bin/sh
# event_census.sh -- proves that every event EnableEvent accepts is posted.
#
#   event_census.sh VMRUN AGENT EXAMPLES_DIR
#
# Runs the event_census test agent (tests/agents/event_census.c), which
# enables every event of vmpi.h's table that EnableEvent accepts, over a
# few programs and every collector, with a heap small enough that each
# collects.  Fails if, over all the runs, an accepted event never arrived,
# an event arrived that was not accepted, or a RequestEvent that returned
# VMPI_OK was never answered.
set -u
vmrun=$1 agent=$2 examples=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

failed=0
complain() { echo "FAIL: $*"; failed=1; }

# run NAME VMRUN-ARGS...: one run, its census in $scratch/NAME.txt.
run() {
    name=$1
    shift
    "$vmrun" -agentpath:"$agent"=file="$scratch/$name.txt" "$@" >"$scratch/$name.out" 2>"$scratch/$name.err" ||
        complain "$name: exit status $?: $(head -n 3 "$scratch/$name.err")"
}

for gc in marksweep markcompact semispace generational refcount; do
    run "binary_trees_$gc" --gc="$gc" --heap=256k "$examples/binary_trees.gcl" 6
    run "cycles_$gc" --gc="$gc" --heap=256k "$examples/cycles.gcl"
done
# Threads and monitors: contended monitors, wait and notify (MONITOR_*).
run threads --seed=1 "$examples/threads_producer_consumer.gcl"
run contended --seed=1 "$examples/threads_contended_lock.gcl"

cat "$scratch"/*.txt | sort -u >"$scratch/all"
facts() { sed -n "s/^$1 //p" "$scratch/all"; }
for event in $(facts accepted); do
    grep -qx "posted $event" "$scratch/all" || complain "EnableEvent accepts $event, which no run posted"
done
for event in $(facts posted); do
    grep -qx "accepted $event" "$scratch/all" || complain "$event was posted, but EnableEvent refused it"
done
for event in $(facts requested); do
    grep -qx "answered $event" "$scratch/all" || complain "RequestEvent($event) returned VMPI_OK, but no run got it"
done
[ -n "$(facts accepted)" ] || complain "no run wrote a census"
if [ "$failed" -eq 0 ]; then
    echo "accepted and posted: $(facts accepted | tr '\n' ' ')"
    echo "requested and answered: $(facts requested | tr '\n' ' ')"
fi
exit "$failed"
