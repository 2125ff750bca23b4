#!/usr/bin/env bash
# threads_overhead.sh -- what agents' handlers cost a program whose four
# threads post events at once, with handlers overlapping (vmrun's default)
# and one at a time (--one-at-a-time), and how often they overlapped
# (docs/contracts.md, "Handlers that overlap").  Two programs:
# binary_trees_threads 14, whose threads allocate, and fib_threads 28,
# whose threads call.  Each is run under its ways below in turn, and the
# median of each is shown.
#
#   none            no agent at all
#   sites           hprof heap=sites: every allocation handled
#   sites_one       the same, --one-at-a-time
#   cpu_times       hprof cpu=times: every method entry and exit handled
#                   (fib_threads only: binary_trees_threads 14 takes
#                   some 20 s so)
#   cpu_times_one   the same, --one-at-a-time
#
# Then, once per program and mode, the test agent overlap_counter
# (tests/agents/overlap_counter.c: handlers of a few microseconds, on
# allocations for binary_trees_threads, on method entries and exits for
# fib_threads) says how many of its handlers found another running.
#
# Usage: threads_overhead.sh [options]
#   --build=DIR     the build tree (default ../../build beside this script)
#   --reps=N        runs of each way (default 5)
#   --quick         one run each, at small sizes: proves the script works,
#                   says nothing about overhead
#   -h, --help      this text
# Prints, per program, one line per way: median and min-max wall seconds
# and the ratio of the median to `none`; then one line per mode:
# "overlap MODE: handlers=N overlapped=M most_at_once=K".  Exits non-zero
# if any run fails or its output differs from the first run's.

set -u
script_dir=$(cd "$(dirname "$0")" && pwd)
build=$script_dir/../../build
reps=5
programs="binary_trees_threads:14:alloc fib_threads:28:methods"
for arg in "$@"; do
    case $arg in
        --build=*) build=${arg#--build=} ;;
        --reps=*) reps=${arg#--reps=} ;;
        --quick) reps=1 programs="binary_trees_threads:8:alloc fib_threads:15:methods" ;;
        -h | --help) sed -n '/^# Usage:/,/^# if any/s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "threads_overhead.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
    esac
done
case $reps in '' | *[!0-9]* | 0) echo "threads_overhead.sh: --reps needs a positive integer" >&2; exit 2 ;; esac

vmrun=$build/bin/vmrun
counter=$build/tests/agents/liboverlap_counter.so
[ -x "$vmrun" ] || { echo "threads_overhead.sh: $vmrun not found (build first, or --build=DIR)" >&2; exit 2; }
[ -f "$counter" ] || { echo "threads_overhead.sh: $counter not found (build the tests' agents)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/gclab-threads-overhead.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

# A way's vmrun options: WAY_one is WAY with --one-at-a-time.
way_args() {
    case $1 in *_one) echo --one-at-a-time ;; esac
    case ${1%_one} in
        sites) echo "-agentlib:hprof=heap=sites,file=$work/hprof.txt" ;;
        cpu_times) echo "-agentlib:hprof=cpu=times,file=$work/hprof.txt" ;;
    esac
}

# shellcheck source=overhead_lib.sh
. "$script_dir/overhead_lib.sh"
vm_options=""
for program_size in $programs; do
    program=${program_size%%:*} rest=${program_size#*:}
    size=${rest%%:*} events=${rest#*:}
    "$build/bin/vmc" "$script_dir/$program.gcl" -o "$work/prog.bc" || exit 2
    ways="none sites sites_one"
    [ "$events" = alloc ] || ways="$ways cpu_times cpu_times_one"
    # shellcheck disable=SC2086 # the ways are words
    overhead_time threads_overhead.sh "$vmrun" "$work/prog.bc" "$size" "$reps" $ways || exit 1
    printf '\n%s %s, 4 threads, %d runs each, alternating\n' "$program" "$size" "$reps"
    # shellcheck disable=SC2086
    overhead_table $ways
    for mode in overlapping one-at-a-time; do
        flag=""
        [ "$mode" = overlapping ] || flag=--one-at-a-time
        # shellcheck disable=SC2086 # no flag is no word
        if ! "$vmrun" $flag "-agentpath:$counter=events=$events" "$work/prog.bc" "$size" >/dev/null 2>"$work/err"; then
            echo "threads_overhead.sh: overlap_counter failed ($mode):" >&2
            cat "$work/err" >&2
            exit 1
        fi
        counts=$(sed -n 's/^overlap_counter: \(handlers=[0-9]* overlapped=[0-9]* most_at_once=[0-9]*\).*/\1/p' "$work/err")
        [ -n "$counts" ] || { echo "threads_overhead.sh: overlap_counter said nothing ($mode)" >&2; exit 1; }
        printf 'overlap %s: %s\n' "$mode" "$counts"
    done
done
