#!/usr/bin/env bash
# vmpi_overhead.sh -- what VMPI costs a running program: one benchmark, run
# in five ways, alternating, and the median of each.
#
#   none     no agent at all
#   idle     an agent loaded that enables no event (tests/agents/idle.c):
#            every post site pays its one branch, and nothing more
#   strict   the same agent under --vmpi-strict
#   trace    the trace agent writing every heap, GC, class and thread
#            event to /dev/null
#   binary   the same events as a binary recording (format=binary,
#            docs/trace-format.md), to /dev/null
#   record   the same recording written by the VM itself (vmrun --record,
#            docs/trace-format.md, "The recording in the VM"), to /dev/null
#
# Usage: vmpi_overhead.sh [options]
#   --build=DIR     the build tree (default ../../build beside this script)
#   --gc=NAME       the collector (default: vmrun's default)
#   --reps=N        runs of each way (default 5); the ways take turns, so
#                   a slow moment of the machine hits all of them alike
#   --program=NAME  a benchmark of this directory (default binary_trees)
#   --size=N        its argument (default 16)
#   --ways=A,B      only these ways, in this order (the first is the base
#                   of the ratios; default: all, none first)
#   --instructions  also run each way once under callgrind (--seed=1) and
#                   show its instructions beside the times (needs valgrind;
#                   slow: about 50 times a run)
#   -h, --help      this text
# Prints one line per way: median and min-max wall seconds, and the ratio
# of the median to the first way's (with --instructions, the instruction
# count and its ratio too).  Exits non-zero if any run fails or its output
# differs from the first run's.

set -u
script_dir=$(cd "$(dirname "$0")" && pwd)
build=$script_dir/../../build
gc_option=""
reps=5
program=binary_trees
size=16
ways="none idle strict trace binary record"
instructions=""
for arg in "$@"; do
    case $arg in
        --build=*) build=${arg#--build=} ;;
        --gc=*) gc_option=$arg ;;
        --reps=*) reps=${arg#--reps=} ;;
        --program=*) program=${arg#--program=} ;;
        --size=*) size=${arg#--size=} ;;
        --ways=*) ways=$(echo "${arg#--ways=}" | tr , ' ') ;;
        --instructions) instructions=1 ;;
        -h | --help) sed -n '/^# Usage:/,/^# differs/s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "vmpi_overhead.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
    esac
done
case $reps in '' | *[!0-9]* | 0) echo "vmpi_overhead.sh: --reps needs a positive integer" >&2; exit 2 ;; esac

vmrun=$build/bin/vmrun
idle=$build/tests/agents/libidle.so
for file in "$vmrun" "$idle" "$script_dir/$program.gcl"; do
    [ -e "$file" ] || { echo "vmpi_overhead.sh: $file not found (build first, or --build=DIR)" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/gclab-vmpi-overhead.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
"$build/bin/vmc" "$script_dir/$program.gcl" -o "$work/prog.bc" || exit 2

way_args() {
    case $1 in
        none) ;;
        idle) echo "-agentpath:$idle" ;;
        strict) echo "--vmpi-strict -agentpath:$idle" ;;
        trace) echo "-agentlib:trace=file=/dev/null" ;;
        binary) echo "-agentlib:trace=file=/dev/null,format=binary" ;;
        record) echo "--record=/dev/null" ;;
        *) return 1 ;;
    esac
}

for way in $ways; do
    way_args "$way" >/dev/null || { echo "vmpi_overhead.sh: no way $way (try --help)" >&2; exit 2; }
done

# shellcheck source=overhead_lib.sh
. "$script_dir/overhead_lib.sh"
vm_options=$gc_option
# shellcheck disable=SC2086 # the ways are words
overhead_time vmpi_overhead.sh "$vmrun" "$work/prog.bc" "$size" "$reps" $ways || exit 1
# shellcheck disable=SC2086
[ -z "$instructions" ] || overhead_instructions vmpi_overhead.sh "$vmrun" "$work/prog.bc" "$size" $ways || exit 1
printf '%s %s, %d runs each, alternating\n' "$program $size" "${gc_option:---gc=default}" "$reps"
# shellcheck disable=SC2086
overhead_table $ways
