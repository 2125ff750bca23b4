#!/bin/sh
# collectors.sh -- one program under every collector, side by side.
#
# Usage: collectors.sh [--heap=SIZE] PROGRAM.gcl [ARGS...]
#
# Runs PROGRAM once under each collector vmrun has (the list its --gc option
# gives when it rejects a name, vm/interp/options.c) with --gc-log and
# prints, from the log's closing summary line (gc/common/collect.c), a table
# of: wall time, collections (minor/major/cycle), total and longest pause,
# objects moved and freed, and peak RSS.  If PROGRAM has a Lua version beside it
# (NAME.lua), lua5.4 runs it in the same run, for scale.  Every collector
# must print the same output; a disagreement is reported and fails the run.
#
# Environment: VMRUN (default: ../../build/bin/vmrun beside this script), LUA.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
vmrun=${VMRUN:-$here/../../build/bin/vmrun}
lua=${LUA:-lua5.4}
heap_option=""
case "${1:-}" in --heap=*) heap_option=$1; shift ;; esac
[ $# -ge 1 ] || { sed -n '3,4s/^# //p' "$0" >&2; exit 2; }
program=$1
shift
[ -x "$vmrun" ] || { echo "collectors.sh: no vmrun at $vmrun (build first, or set VMRUN)" >&2; exit 1; }
# "vmrun: unknown collector '' (available: marksweep, markcompact, ...)"
collectors=$("$vmrun" --gc= 2>&1 | sed -n 's/.*(available: \(.*\))$/\1/p' | tr -d ',')
[ -n "$collectors" ] || { echo "collectors.sh: $vmrun did not list its collectors" >&2; exit 1; }
reference=${collectors%% *}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
now() { date +%s.%N; }

printf '%-13s %8s %6s %6s %6s %6s %10s %9s %10s %10s %9s\n' \
    collector "time s" colls minor major cycle "pause ms" "max ms" moved freed "RSS MiB"
for gc in $collectors; do
    start=$(now)
    "$vmrun" --gc=$gc $heap_option --gc-log "$program" "$@" >"$scratch/$gc.out" 2>"$scratch/$gc.log" || {
        echo "$gc: vmrun failed:" >&2
        tail -n 3 "$scratch/$gc.log" >&2
        exit 1
    }
    end=$(now)
    # [gc] NAME: C collections (M minor, J major, Y cycle), pause total P ms,
    # longest L ms; A objects allocated (X MiB), F freed, V moved (W MiB); peak RSS R KiB
    grep '^\[gc\] ' "$scratch/$gc.log" | tail -n 1 | tr -d '(),;' | awk -v gc=$gc -v start="$start" -v end="$end" '{
        printf "%-13s %8.2f %6d %6d %6d %6d %10.1f %9.2f %10d %10d %9.1f\n",
            gc, end - start, $3, $5, $7, $9, $13, $16, $25, $23, $31 / 1024
    }'
    if ! cmp -s "$scratch/$reference.out" "$scratch/$gc.out"; then
        echo "$gc: output differs from $reference's" >&2
        exit 1
    fi
done
lua_version="${program%.gcl}.lua"
if [ -f "$lua_version" ] && command -v "$lua" >/dev/null 2>&1; then
    start=$(now)
    "$lua" "$lua_version" "$@" >"$scratch/lua.out"
    end=$(now)
    printf '%-13s %8.2f\n' "$lua" "$(echo "$end - $start" | awk '{print $1 - $3}')"
fi
