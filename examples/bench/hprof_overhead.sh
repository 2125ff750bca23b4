#!/usr/bin/env bash
# hprof_overhead.sh -- what the hprof agent costs a running program, per
# configuration: binary_trees 16 and list_churn 1000000, each run under
# every configuration below in turn, and the median of each.
#
#   none         no agent at all
#   sites        heap=sites: every object tracked to its allocation site
#                (the VM's call sites: docs/hprof.md, "What it costs")
#   dump         heap=dump: the same tracking, and a heap dump at exit
#   cpu_times    cpu=times: every method entry and exit timed
#   cpu_samples  cpu=samples
#   sampled      sample=524288: sites estimated from heap sampling at 512 KiB
#   sampled_live sample=524288,sample_live=y: the same, with live estimates
#   record       no hprof: the VM's binary recording of every heap, GC, class
#                and thread event (vmrun --record, docs/trace-format.md),
#                the exact recording issue 26 weighs beside heap=sites
#
# A configuration whose options hprof refuses (one not built yet) is
# skipped with a note.  To add one, add a line to `configs` below.
#
# Usage: hprof_overhead.sh [options]
#   --build=DIR     the build tree (default ../../build beside this script)
#   --gc=NAME       the collector, or `all` for each of vmrun's collectors
#                   in turn (default: vmrun's default)
#   --reps=N        runs of each configuration (default 5)
#   --configs=A,B   only these configurations, in this order (the first is
#                   the base of the ratios; default: all, none first)
#   --instructions  also run each configuration once under callgrind
#                   (--seed=1) and show its instructions beside the times
#                   (needs valgrind; slow: about 50 times a run)
#   --quick         one run each, at small sizes: proves the script works,
#                   says nothing about overhead
#   -h, --help      this text
# Prints, per program and collector, one line per configuration: median
# and min-max wall seconds, and the ratio of the median to `none` (with
# --instructions, the instruction count and its ratio too).  Exits
# non-zero if any run fails or its output differs from the first run's.

set -u
script_dir=$(cd "$(dirname "$0")" && pwd)
build=$script_dir/../../build
gc=""
reps=5
programs="binary_trees:16 list_churn:1000000"
only=""
instructions=""
for arg in "$@"; do
    case $arg in
        --build=*) build=${arg#--build=} ;;
        --gc=*) gc=${arg#--gc=} ;;
        --reps=*) reps=${arg#--reps=} ;;
        --configs=*) only=$(echo "${arg#--configs=}" | tr , ' ') ;;
        --instructions) instructions=1 ;;
        --quick) reps=1 programs="binary_trees:8 list_churn:2000" ;;
        -h | --help) sed -n '/^# Usage:/,/^# non-zero/s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) echo "hprof_overhead.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
    esac
done
case $reps in '' | *[!0-9]* | 0) echo "hprof_overhead.sh: --reps needs a positive integer" >&2; exit 2 ;; esac

# name|hprof options (empty: no agent; "vmrun:" and vmrun's own options
# instead of hprof).  The first is the base of the ratios.
configs="
none|
sites|heap=sites
dump|heap=dump
cpu_times|cpu=times
cpu_samples|cpu=samples
sampled|sample=524288
sampled_live|sample=524288,sample_live=y
record|vmrun:--record=/dev/null
"

vmrun=$build/bin/vmrun
[ -x "$vmrun" ] || { echo "hprof_overhead.sh: $vmrun not found (build first, or --build=DIR)" >&2; exit 2; }
if [ "$gc" = all ]; then
    collectors=$("$vmrun" --help | awk '/^  --gc=NAME/ { on = 1; next } on && /^    +[a-z]+ +[a-z]/ { print $1; next } on { exit }')
    [ -n "$collectors" ] || { echo "hprof_overhead.sh: $vmrun did not list its collectors" >&2; exit 2; }
else
    collectors=${gc:-default}
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gclab-hprof-overhead.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

options_of() { echo "$configs" | awk -F'|' -v n="$1" '$1 == n { print $2 }'; }
way_args() {
    local options
    options=$(options_of "$1")
    case $options in
        '') ;;
        vmrun:*) echo "${options#vmrun:}" ;;
        *) echo "-agentlib:hprof=$options,file=$work/$1.hprof.txt" ;;
    esac
}

# The configurations hprof takes: each is tried once on a tiny program.
echo 'int main(string[] args) { return 0; }' >"$work/empty.gcl"
"$build/bin/vmc" "$work/empty.gcl" -o "$work/empty.bc" || exit 2
ways=""
for way in ${only:-$(echo "$configs" | awk -F'|' 'NF { print $1 }')}; do
    echo "$configs" | grep -q "^$way|" || { echo "hprof_overhead.sh: no configuration $way" >&2; exit 2; }
    # shellcheck disable=SC2046 # way_args is split into options on purpose
    if "$vmrun" $(way_args "$way") "$work/empty.bc" >/dev/null 2>"$work/err"; then
        ways="$ways $way"
    elif grep -q '^hprof: option' "$work/err"; then
        echo "hprof_overhead.sh: skipping $way: $(grep -m 1 '^hprof: option' "$work/err")"
    else
        echo "hprof_overhead.sh: $way fails on an empty program:" >&2
        cat "$work/err" >&2
        exit 1
    fi
done

# shellcheck source=overhead_lib.sh
. "$script_dir/overhead_lib.sh"
for program_size in $programs; do
    program=${program_size%%:*} size=${program_size#*:}
    "$build/bin/vmc" "$script_dir/$program.gcl" -o "$work/prog.bc" || exit 2
    for collector in $collectors; do
        vm_options=""
        [ "$collector" = default ] || vm_options="--gc=$collector"
        # shellcheck disable=SC2086 # the ways are words
        overhead_time hprof_overhead.sh "$vmrun" "$work/prog.bc" "$size" "$reps" $ways || exit 1
        # shellcheck disable=SC2086
        [ -z "$instructions" ] || overhead_instructions hprof_overhead.sh "$vmrun" "$work/prog.bc" "$size" $ways || exit 1
        printf '\n%s %s, --gc=%s, %d runs each, alternating\n' "$program" "$size" "$collector" "$reps"
        # shellcheck disable=SC2086
        overhead_table $ways
    done
done
