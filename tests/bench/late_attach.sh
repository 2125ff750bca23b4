#!/bin/sh
# late_attach.sh -- the late-attach benchmark (a benchmark, not a test: no
# pass/fail on time).  Under each collector, tests/heap/late_attach.gcl
# builds and keeps N objects (default 1,000,000); at attach() the agent
# tests/agents/late_attach.c enables the heap events and learns every
# arena and object by RequestEvent(ARENA_NEW), a level-0 heap dump and one
# RequestEvent(OBJECT_ALLOC) per ID, and says how long that took.
#
#   tests/bench/late_attach.sh [BUILD_DIR [N]]      BUILD_DIR defaults to build
#
# Prints one line per collector:
#   marksweep     late_attach: ok: learned 1000004 objects in 1 arenas (1 "heap") in 0.312 s (0.301 s of CPU)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
n=${2:-1000000}
vmrun=$build/bin/vmrun
agent=$build/tests/agents/liblate_attach.so
for file in "$vmrun" "$agent"; do
    [ -e "$file" ] || { echo "late_attach.sh: $file is missing: build first (cmake --build $build)" >&2; exit 2; }
done
for gc in marksweep markcompact semispace generational refcount; do
    # A heap large enough that no collector runs out; the program's own
    # output ("attached") goes to /dev/null.
    line=$("$vmrun" --gc="$gc" --heap=1g -agentpath:"$agent=objects=$((n + 4))" \
        "$root/tests/heap/late_attach.gcl" "$n" 2>&1 >/dev/null) || { echo "$gc: $line" >&2; exit 1; }
    printf '%-13s %s\n' "$gc" "$line"
done
