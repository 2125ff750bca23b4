#!/bin/sh
# fuzz.sh -- runs fuzz harnesses built with GCLAB_FUZZ (README.md beside this
# file), one after another, each for SECONDS of wall time.
#
#   tests/fuzz/fuzz.sh BUILD_DIR SECONDS [HARNESS...] [-- LIBFUZZER_OPTION...]
#
# With no HARNESS, runs them all.  Each fuzzes a working corpus,
# BUILD_DIR/fuzz-work/NAME/corpus, seeded from tests/fuzz/corpus/NAME and
# the test inputs tests/fuzz/seeds.txt names, and kept between runs; a finding is written to BUILD_DIR/fuzz-work/NAME/ as
# crash-*, leak-*, timeout-* or oom-*, and ends the script with status 1.
set -eu
fuzz_dir=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_DIR SECONDS [HARNESS...] [-- LIBFUZZER_OPTION...]" >&2
    exit 2
fi
build_dir=$(cd "$1" && pwd)
seconds=$2
shift 2
harnesses=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    harnesses="$harnesses $1"
    shift
done
[ $# -gt 0 ] && shift # the "--"
[ -n "$harnesses" ] || harnesses=$(cd "$fuzz_dir/corpus" && ls)

# Leaks are findings; the verified_run harness sets its children's options.
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
for name in $harnesses; do
    work=$build_dir/fuzz-work/$name
    mkdir -p "$work/corpus"
    cp "$fuzz_dir/corpus/$name/"* "$work/corpus/"
    # and the test inputs seeds.txt names for it
    (cd "$fuzz_dir/../.." &&
        for seed in $(awk -v name="$name" '$1 == name { $1 = ""; print }' tests/fuzz/seeds.txt); do
            if [ -f "$seed" ]; then cp "$seed" "$work/corpus/"; fi
        done)
    dict=""
    [ -f "$fuzz_dir/$name.dict" ] && dict="-dict=$fuzz_dir/$name.dict"
    echo "fuzz.sh: fuzzing $name for ${seconds}s"
    if ! "$build_dir/bin/fuzz_$name" -max_total_time="$seconds" -timeout=30 -print_final_stats=1 \
            -artifact_prefix="$work/" $dict "$@" "$work/corpus" > "$work/log" 2>&1; then
        tail -n 60 "$work/log"
        echo "fuzz.sh: $name found a problem; the input is in $work/ (see tests/fuzz/README.md)" >&2
        exit 1
    fi
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done )' "$work/log" | tr '\n' ' '
    echo
done
