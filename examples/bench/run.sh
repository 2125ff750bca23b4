#!/usr/bin/env bash
# run.sh -- times gclab's vmrun against Lua 5.4 and CPython on the same six
# programs, on the same machine, in the same run.
#
# Each benchmark is written three times (NAME.gcl, NAME.lua, NAME.py) as the
# same algorithm printing the same output; this script checks that the three
# outputs agree before it believes any timing.
#
#   binary_trees  Benchmarks Game binary-trees: millions of short-lived tree
#                 nodes around one long-lived tree.  Allocation speed and the
#                 cost of reclaiming young garbage.
#   gcbench       Boehm's GCBench: trees of growing depth built top-down
#                 (old-to-young pointer stores: the write barrier) and
#                 bottom-up, beside a long-lived tree and a long-lived array
#                 of 500000 doubles that every full collection must keep.
#   fib           Recursive Fibonacci.  No allocation: call/return speed.
#   loop          A tight integer arithmetic loop.  No allocation: raw
#                 interpreter dispatch and arithmetic.
#   list_churn    Many short lists, every 100th kept in a ring of 128
#                 survivors that are replaced later: the generational
#                 hypothesis, with medium-lived objects to promote.
#   cycles        Doubly linked rings built, walked and dropped: garbage made
#                 only of reference cycles (a leak for refcounting without a
#                 cycle collector; work for CPython's cycle detector).
#
# Usage: run.sh [options] [BENCHMARK...]      (default: all six)
#   --gc=NAME       pass --gc=NAME to vmrun (default: vmrun's own default)
#   --vmargs="..."  extra options for vmrun, e.g. --vmargs="--heap=256m"
#   --quick         small sizes (a few seconds for the whole table)
#   --reps=N        runs per program and language (default 3); the table
#                   shows the median time and the largest peak RSS
#   -h, --help      this text
# Environment: VMRUN (default ../../build/bin/vmrun beside this script),
#              LUA (default lua5.4), PYTHON (default python3).
#
# Peak RSS needs GNU time as /usr/bin/time; without it the RSS columns read
# "-".  The exit status is non-zero if any program failed or any outputs
# disagreed.

set -u

script_dir=$(cd "$(dirname "$0")" && pwd)
VMRUN=${VMRUN:-$script_dir/../../build/bin/vmrun}
LUA=${LUA:-lua5.4}
PYTHON=${PYTHON:-python3}

all_benchmarks="binary_trees gcbench fib loop list_churn cycles"

# Problem sizes (the programs' own defaults, passed explicitly) and the
# --quick sizes.
full_size() {
    case $1 in
        binary_trees) echo 16 ;;
        gcbench) echo 16 ;;
        fib) echo 37 ;;
        loop) echo 100000000 ;;
        list_churn) echo 1000000 ;;
        cycles) echo 200000 ;;
    esac
}
quick_size() {
    case $1 in
        binary_trees) echo 12 ;;
        gcbench) echo 12 ;;
        fib) echo 27 ;;
        loop) echo 5000000 ;;
        list_churn) echo 50000 ;;
        cycles) echo 10000 ;;
    esac
}

usage() {
    sed -n '/^# Usage:/,/^# disagreed/s/^# \{0,1\}//p' "$0"
}

gc_option=""
vm_extra=""
quick=0
reps=3
selected=""
for arg in "$@"; do
    case $arg in
        --gc=*) gc_option=$arg ;;
        --vmargs=*) vm_extra=${arg#--vmargs=} ;;
        --quick) quick=1 ;;
        --reps=*)
            reps=${arg#--reps=}
            case $reps in
                '' | *[!0-9]* | 0) echo "run.sh: --reps needs a positive integer" >&2; exit 2 ;;
            esac ;;
        -h | --help) usage; exit 0 ;;
        -*) echo "run.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
        *)
            case " $all_benchmarks " in
                *" $arg "*) selected="$selected $arg" ;;
                *) echo "run.sh: no benchmark named '$arg' (have: $all_benchmarks)" >&2; exit 2 ;;
            esac ;;
    esac
done
[ -n "$selected" ] || selected=$all_benchmarks

if [ ! -x "$VMRUN" ]; then
    echo "run.sh: vmrun not found at $VMRUN (build it, or set VMRUN)" >&2
    exit 2
fi
have() { command -v "$1" >/dev/null 2>&1; }
have_lua=0; have "$LUA" && have_lua=1
have_python=0; have "$PYTHON" && have_python=1
[ $have_lua = 1 ] || echo "run.sh: $LUA not found; its columns will read '-'" >&2
[ $have_python = 1 ] || echo "run.sh: $PYTHON not found; its columns will read '-'" >&2

have_gnu_time=0
if [ -x /usr/bin/time ] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
    have_gnu_time=1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gclab-bench.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

# Compile each program once, outside the timing, when vmc sits beside vmrun;
# otherwise vmrun compiles the source itself (and the time includes that).
vmc=$(dirname "$VMRUN")/vmc
vm_program() {
    local name=$1
    if [ -x "$vmc" ] && "$vmc" "$script_dir/$name.gcl" -o "$work/$name.bc" 2>"$work/$name.vmc.err"; then
        echo "$work/$name.bc"
    else
        echo "$script_dir/$name.gcl"
    fi
}

# measure LABEL CMD... : runs CMD $reps times, stdout of the first run to
# $work/LABEL.out, and sets `median` (seconds) and `peak` (KB, or "-").
# Sets `failed` to the exit status of a failing run (0 if all succeeded).
measure() {
    local label=$1; shift
    local times="" rep start end status rss
    failed=0
    peak="-"
    for ((rep = 1; rep <= reps; rep++)); do
        start=$(date +%s.%N)
        if [ $have_gnu_time = 1 ]; then
            /usr/bin/time -f %M -o "$work/$label.rss" "$@" >"$work/$label.run" 2>"$work/$label.err"
            status=$?
        else
            "$@" >"$work/$label.run" 2>"$work/$label.err"
            status=$?
        fi
        end=$(date +%s.%N)
        [ $rep = 1 ] && cp "$work/$label.run" "$work/$label.out"
        if [ $status != 0 ]; then
            failed=$status
            break
        fi
        times="$times $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')"
        if [ $have_gnu_time = 1 ]; then
            rss=$(tail -n 1 "$work/$label.rss")
            if [ "$peak" = "-" ] || [ "$rss" -gt "$peak" ]; then peak=$rss; fi
        fi
    done
    median=$(printf '%s\n' $times | sort -n | awk '{ t[NR] = $1 } END { if (NR) print t[int((NR + 1) / 2)]; else print "-" }')
}

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'
}
megabytes() {
    awk -v k="$1" 'BEGIN { if (k == "-") print "-"; else printf "%.1f", k / 1024 }'
}

row_format="%-13s %8s %8s %8s %9s %9s %8s %8s %8s  %s\n"
echo "gclab benchmarks: $reps run(s) each, median time; $( [ $quick = 1 ] && echo "quick sizes" || echo "full sizes" ); vmrun ${gc_option:-(default collector)} $vm_extra"
printf "$row_format" benchmark "vmrun s" "lua s" "python s" "vm/lua" "vm/python" "vm MB" "lua MB" "py MB" outputs
problems=0
for name in $selected; do
    if [ $quick = 1 ]; then size=$(quick_size "$name"); else size=$(full_size "$name"); fi
    program=$(vm_program "$name")

    # shellcheck disable=SC2086  # gc_option and vm_extra split into words on purpose
    measure vm "$VMRUN" $gc_option $vm_extra "$program" "$size"
    vm_time=$median vm_rss=$peak vm_failed=$failed
    lua_time="-" lua_rss="-" lua_failed=0
    if [ $have_lua = 1 ]; then
        measure lua "$LUA" "$script_dir/$name.lua" "$size"
        lua_time=$median lua_rss=$peak lua_failed=$failed
    fi
    py_time="-" py_rss="-" py_failed=0
    if [ $have_python = 1 ]; then
        measure py "$PYTHON" "$script_dir/$name.py" "$size"
        py_time=$median py_rss=$peak py_failed=$failed
    fi

    verdict="agree"
    if [ $vm_failed != 0 ]; then
        verdict="vmrun FAILED (status $vm_failed): $(head -n 1 "$work/vm.err")"
        vm_time="-"
    elif [ $lua_failed != 0 ] || [ $py_failed != 0 ]; then
        verdict="lua/python FAILED"
    else
        differ=""
        [ $have_lua = 1 ] && ! cmp -s "$work/vm.out" "$work/lua.out" && differ="$differ lua"
        [ $have_python = 1 ] && ! cmp -s "$work/vm.out" "$work/py.out" && differ="$differ python"
        [ -n "$differ" ] && verdict="vmrun output DIFFERS from:$differ"
    fi
    [ "$verdict" = agree ] || problems=$((problems + 1))

    printf "$row_format" "$name" "$vm_time" "$lua_time" "$py_time" \
        "$(ratio "$vm_time" "$lua_time")" "$(ratio "$vm_time" "$py_time")" \
        "$(megabytes "$vm_rss")" "$(megabytes "$lua_rss")" "$(megabytes "$py_rss")" "$verdict"
done

if [ $problems != 0 ]; then
    echo "run.sh: $problems benchmark(s) failed or disagreed" >&2
    exit 1
fi
