#!/bin/sh
# hprof_overhead_quick.sh -- examples/bench/hprof_overhead.sh works.
#
#   hprof_overhead_quick.sh SCRIPT BUILD_DIR
#
# Runs the overhead script in --quick mode (one run of each configuration,
# small sizes).  No timing is asserted: the script itself fails if a run
# fails or prints other than the run without the agent; here each program
# must have its table, with a row for each configuration hprof takes today.
set -u
script=$1 build=$2
fail() { echo "FAIL: $*"; exit 1; }
bash "$script" --quick --build="$build" >overhead.out 2>overhead.err || fail "the script failed: $(cat overhead.err)"
cat overhead.out
for program in binary_trees list_churn; do
    awk -v p="$program" '$1 == p { on = 1; next } on && NF == 0 { exit } on { print $1 }' overhead.out >"rows.$program"
    for way in none sites dump cpu_times record; do
        grep -qx "$way" "rows.$program" || fail "$program: no $way row"
    done
done
echo "both programs, every configuration timed"
