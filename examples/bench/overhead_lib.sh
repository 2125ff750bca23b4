# shellcheck shell=bash
# overhead_lib.sh -- what the overhead scripts share (vmpi_overhead.sh,
# hprof_overhead.sh): runs of one program in several ways, taking turns, and
# a table of the median of each.  Sourced, not run.
#
# The caller sets `work` (a scratch directory), `vm_options` (vmrun options
# for every way, e.g. --gc=NAME) and `way_args` (a function printing the
# vmrun options of one way), then calls overhead_time and overhead_table.  Times go to $work/WAY.times, one line per run.

# overhead_time TAG VMRUN PROG.BC SIZE REPS WAY...
# Runs PROG.BC SIZE under each WAY in turn, REPS rounds, so that a slow
# moment of the machine hits all ways alike.  Every run must succeed and
# print what the first printed.  Returns non-zero (with a message on
# stderr) otherwise.
# shellcheck disable=SC2154 # work and vm_options are the caller's
overhead_time() {
    local tag=$1 vmrun=$2 bc=$3 size=$4 reps=$5 rep way start end status
    shift 5
    rm -f "$work"/*.times "$work"/*.instructions "$work/expected"
    for ((rep = 1; rep <= reps; rep++)); do
        for way in "$@"; do
            start=$(date +%s.%N)
            # shellcheck disable=SC2046,SC2086 # options are split into words on purpose
            "$vmrun" $vm_options $(way_args "$way") "$bc" "$size" >"$work/out" 2>"$work/err"
            status=$?
            end=$(date +%s.%N)
            if [ $status != 0 ]; then
                echo "$tag: $way failed with status $status:" >&2
                cat "$work/err" >&2
                return 1
            fi
            [ -e "$work/expected" ] || cp "$work/out" "$work/expected"
            cmp -s "$work/expected" "$work/out" || { echo "$tag: $way printed different output" >&2; return 1; }
            awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }' >>"$work/$way.times"
        done
    done
}

# overhead_instructions TAG VMRUN PROG.BC SIZE WAY...
# Runs PROG.BC SIZE once under each WAY under callgrind, with --seed=1 (a
# seeded run executes the same instructions every time, so one is enough),
# and keeps the count in $work/WAY.instructions for overhead_table.
overhead_instructions() {
    local tag=$1 vmrun=$2 bc=$3 size=$4 way
    shift 4
    command -v valgrind >/dev/null || { echo "$tag: counting instructions needs valgrind" >&2; return 1; }
    for way in "$@"; do
        # shellcheck disable=SC2046,SC2086 # options are split into words on purpose
        if ! valgrind --tool=callgrind --callgrind-out-file=/dev/null "$vmrun" --seed=1 $vm_options \
            $(way_args "$way") "$bc" "$size" >/dev/null 2>"$work/err"; then
            echo "$tag: $way failed under callgrind:" >&2
            cat "$work/err" >&2
            return 1
        fi
        awk '/Collected :/ { print $NF }' "$work/err" >"$work/$way.instructions"
    done
}

overhead_median() { sort -n "$1" | awk '{ t[NR] = $1 } END { print (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'; }

# overhead_table WAY...: one line per way, median and min-max wall seconds
# and the ratio of the median to the first way's; and, if
# overhead_instructions ran, the instructions and their ratio.
overhead_table() {
    local base ibase m range way counts=""
    base=$(overhead_median "$work/$1.times")
    [ -e "$work/$1.instructions" ] && counts=1 ibase=$(cat "$work/$1.instructions")
    printf '%-12s %8s %17s %7s' way median min-max ratio
    [ -z "$counts" ] || printf ' %15s %7s' instructions ratio
    printf '\n'
    for way in "$@"; do
        m=$(overhead_median "$work/$way.times")
        range=$(sort -n "$work/$way.times" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }')
        printf '%-12s %8s %17s %7s' "$way" "$m" "$range" "$(awk -v m="$m" -v b="$base" 'BEGIN { printf "%.2fx", m / b }')"
        [ -z "$counts" ] || printf ' %15s %7s' "$(cat "$work/$way.instructions")" \
            "$(awk -v m="$(cat "$work/$way.instructions")" -v b="$ibase" 'BEGIN { printf "%.2fx", m / b }')"
        printf '\n'
    done
}
