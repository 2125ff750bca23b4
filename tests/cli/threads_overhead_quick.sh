#!/bin/sh
# threads_overhead_quick.sh -- examples/bench/threads_overhead.sh works.
#
#   threads_overhead_quick.sh SCRIPT BUILD_DIR
#
# Runs the threads benchmark in --quick mode (one run of each way, small
# sizes).  No timing is asserted: the script itself fails if a run fails
# or prints other than the run without an agent; here each program must
# have its table, a row for each of its ways, and its overlap counts:
# handlers counted in both modes, and none overlapping one at a time.
set -u
script=$1 build=$2
fail() { echo "FAIL: $*"; exit 1; }
bash "$script" --quick --build="$build" >overhead.out 2>overhead.err || fail "the script failed: $(cat overhead.err)"
cat overhead.out
for program in binary_trees_threads fib_threads; do
    awk -v p="$program" '$1 == p { on = 1; next } on && NF == 0 { exit } on { print }' overhead.out >"rows.$program"
    ways="none sites sites_one"
    [ "$program" = binary_trees_threads ] || ways="$ways cpu_times cpu_times_one"
    for way in $ways; do
        grep -q "^$way " "rows.$program" || fail "$program: no $way row"
    done
    grep -Eq '^overlap overlapping: handlers=[1-9][0-9]* overlapped=[0-9]+ most_at_once=[1-5]$' "rows.$program" ||
        fail "$program: no overlap count with handlers overlapping"
    grep -Eq '^overlap one-at-a-time: handlers=[1-9][0-9]* overlapped=0 most_at_once=1$' "rows.$program" ||
        fail "$program: handlers overlapped with --one-at-a-time"
done
echo "both programs, every way timed, overlap counted"
