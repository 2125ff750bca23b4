#!/bin/sh
# hprof_pprof.sh -- hprof's pprof= and folded= say what its own tables say,
# read back by `go tool pprof` (Debian's golang-go), under every collector
# (docs/hprof.md, "pprof and folded stacks").
#
#   hprof_pprof.sh VMRUN BINARY_TREES FIB COLLECTOR...
#
# Under each collector, with --vmpi-strict:
#   - BINARY_TREES 10 in a heap small enough that it collects, with
#     heap=sites,cpu=times,pprof=,folded=,
#     folded_value=alloc_space: for each of alloc_space, alloc_objects,
#     inuse_space, inuse_objects and calls, `go tool pprof -top` gives the
#     total of the SITES (or CPU TIME) table of the same run, and per
#     function the sum of the rows whose trace has it innermost; the top
#     heap function is Tree.make; the folded stacks are exactly the SITES
#     rows' traces, outermost frame first, then the class, with their
#     allocated bytes (rows that fold to the same stack summed), sorted;
#   - BINARY_TREES 10 with cpu=times alone, folded_value=calls: pprof shows
#     cpu unless told, and the folded stacks are the CPU TIME rows' traces
#     with their counts;
#   - FIB 35 (about a second of calls) with cpu=samples,interval=1,
#     folded_value=samples: pprof shows cpu unless told, its period is the
#     interval, 1000000 cpu nanoseconds; for samples and cpu, pprof's total
#     and per function flat values are the CPU SAMPLES table's counts
#     (times the interval for cpu); the folded stacks are the table's rows;
#   - BINARY_TREES 12 in a 4 MiB heap with heap=sites,cpu=samples,
#     interval=2,folded_value=cpu: one profile with both tables, inuse_space
#     unless told and the heap's period; -sample_index picks alloc_space,
#     samples or cpu, each agreeing with its table; the folded stacks are
#     the CPU SAMPLES rows with their counts times 2000000 ns.
# Every figure expected is taken from the text profile of the same run; how
# many samples a run gets is not checked beyond "not 0".
# `go tool pprof` runs with a HOME, GOCACHE and PPROF_TMPDIR of its own and
# no symbolization, so it reads nothing but the profile and writes nothing
# outside this run's directory.
set -u
vmrun=$1 trees=$2 fib=$3
shift 3
fail() { echo "FAIL: $*" >&2; exit 1; }  # on standard error, which ctest shows
command -v go >/dev/null || fail "go not found: .ci/install-deps installs golang-go"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" GOCACHE="$work/gocache" PPROF_TMPDIR="$work/pprof" GOFLAGS= GOPROXY=off
mkdir -p "$HOME"

# pprof PROFILE OPTION...: `go tool pprof -top` of PROFILE, every node
# (-unit=byte unless an OPTION names another unit).
pprof() {
    profile=$1
    shift
    go tool pprof -symbolize=none -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -unit=byte "$@" \
        "$profile" 2>"$work/pprof.err" || fail "go tool pprof $* $profile: $(cat "$work/pprof.err")"
}

# top_rows: "function flat" for each row of a -top listing with a flat value.
# (-unit=byte shows a count or bytes unscaled, -unit=ns nanoseconds,
# followed by the unit's name; a CPU profile's total is followed by its share
# of the duration.)
top_rows() { awk '/^ *flat +flat%/ { rows = 1; next } rows { v = $1; sub("[a-zA-Z]+$", "", v); if (v != 0) print $6, v }'; }
top_total() { sed -n 's/.*Total samples = \([0-9]*\)[a-zA-Z]*\( (.*)\)\{0,1\} *$/\1/p'; }

# table TEXT WHAT [INTERVAL_NS]: the rows of TEXT's SITES, CPU TIME or CPU
# SAMPLES table with their traces, one per line: "frames|class|value",
# frames innermost first and separated by ";", class empty for the CPU
# tables; WHAT picks the value: live_bytes, live_objects, alloc_bytes,
# alloc_objects, calls or samples (the CPU table's count), or cpu (CPU
# SAMPLES' count times INTERVAL_NS).  Values print with %.0f: mawk prints
# large numbers in exponent form otherwise.
table() {
    awk -v what="$2" -v interval="${3:-0}" '
        /^TRACE /    { trace = $2; sub(":", "", trace); frames[trace] = ""; next }
        /^\t/        { f = $1; sub(/\(.*/, "", f); frames[trace] = frames[trace] (frames[trace] == "" ? "" : ";") f; next }
        /^SITES BEGIN/           { sites = 1; next }
        /^SITES END/             { sites = 0 }
        /^CPU (TIME \(ms\)|SAMPLES) BEGIN/ { cpu = 1; next }
        /^CPU (TIME \(ms\)|SAMPLES) END/   { cpu = 0 }
        sites && what ~ /^(live|alloc)_/ && $1 ~ /^[0-9]+$/ {
            column["live_bytes"] = 4; column["live_objects"] = 5; column["alloc_bytes"] = 6; column["alloc_objects"] = 7
            print frames[$8] "|" $9 "|" $(column[what])
        }
        cpu && (what == "calls" || what == "samples") && $1 ~ /^[0-9]+$/ { print frames[$5] "||" $4 }
        cpu && what == "cpu" && $1 ~ /^[0-9]+$/ { printf "%s||%.0f\n", frames[$5], $4 * interval }' "$1"
}

# expected_top: from table rows, "function flat" per innermost function
# (traces without frames have none), and the total on a last line "= N".
expected_top() {
    awk -F'|' '{ split($1, f, ";"); if (f[1] != "<empty>" && f[1] != "") flat[f[1]] += $3; total += $3 }
               END { for (m in flat) if (flat[m] != 0) printf "%s %.0f\n", m, flat[m]; printf "= %.0f\n", total }'
}

# expected_folded: from table rows, the folded stacks: frames outermost
# first, then the class, equal stacks summed, zero values left out.
expected_folded() {
    awk -F'|' '{ n = split($1, f, ";"); s = ""; for (i = n; i >= 1; i--) s = s (s == "" ? "" : ";") f[i]
                 if (s == "") s = "<empty>"
                 if ($2 != "") s = s ";" $2
                 sum[s] += $3 }
               END { for (s in sum) if (sum[s] != 0) printf "%s %.0f\n", s, sum[s] }' | LC_ALL=C sort
}

# check_top RUN PROFILE KIND WHAT [INTERVAL_NS]: pprof's -top of KIND against
# the table (cpu in nanoseconds).
check_top() {
    table "$work/$1.txt" "$4" "${5:-}" | expected_top > "$work/$1.$3.expected"
    unit=byte
    [ "$3" = cpu ] && unit=ns
    pprof "$2" -sample_index="$3" -unit=$unit > "$work/$1.$3.top"
    total=$(top_total < "$work/$1.$3.top")
    [ "= $total" = "$(tail -n 1 "$work/$1.$3.expected")" ] ||
        fail "$1: pprof's $3 total is '$total', the table's $(tail -n 1 "$work/$1.$3.expected")"
    sed '$d' "$work/$1.$3.expected" | LC_ALL=C sort > "$work/$1.$3.want"
    top_rows < "$work/$1.$3.top" | LC_ALL=C sort > "$work/$1.$3.got"
    [ -s "$work/$1.$3.want" ] || fail "$1: no $3 in the table"
    cmp -s "$work/$1.$3.want" "$work/$1.$3.got" ||
        fail "$1: pprof's $3 per function differs from the table (< table, > pprof): $(diff "$work/$1.$3.want" "$work/$1.$3.got" | head -n 6)"
}

# check_folded RUN WHAT [INTERVAL_NS]: RUN's folded stacks against its
# table's WHAT.
check_folded() {
    table "$work/$1.txt" "$2" "${3:-}" | expected_folded > "$work/$1.folded.want"
    [ -s "$work/$1.folded.want" ] || fail "$1: no $2 in the table"
    LC_ALL=C sort -c "$work/$1.folded" 2>/dev/null || fail "$1: the folded stacks are not sorted"
    cmp -s "$work/$1.folded.want" "$work/$1.folded" ||
        fail "$1: folded stacks differ from the table's $2 (< table, > folded): $(diff "$work/$1.folded.want" "$work/$1.folded" | head -n 6)"
}

# check_period RUN TYPE UNIT PERIOD: the profile's period type and period.
check_period() {
    go tool pprof -symbolize=none -raw "$work/$1.pb.gz" > "$work/$1.raw" 2>"$work/pprof.err" ||
        fail "go tool pprof -raw $1.pb.gz: $(cat "$work/pprof.err")"
    grep -qx "PeriodType: $2 $3" "$work/$1.raw" && grep -qx "Period: $4" "$work/$1.raw" ||
        fail "$1: the period is not $4 $2 $3: $(grep '^Period' "$work/$1.raw" | tr '\n' ' ')"
}

run() { # NAME OPTIONS PROGRAM ARG [VMRUN OPTION...]: under $gc, its profile in $work/NAME.*
    name=$1 options=$2 program=$3 arg=$4
    shift 4
    $vmrun --gc="$gc" --vmpi-strict "$@" \
        -agentlib:hprof="$options,cutoff=0,depth=6,file=$work/$name.txt,pprof=$work/$name.pb.gz,folded=$work/$name.folded" \
        "$program" "$arg" >"$work/$name.out" 2>"$work/$name.err" || fail "$name: vmrun failed: $(tail -n 3 "$work/$name.err")"
    gzip -t "$work/$name.pb.gz" 2>/dev/null || fail "$name: $name.pb.gz is not gzip"
    ls "$work" | grep -q partial && fail "$name: a temporary file was left: $(ls "$work" | grep partial)"
}

# check_default RUN TYPE: pprof shows TYPE unless told.
check_default() {
    pprof "$work/$1.pb.gz" > "$work/$1.default"
    grep -q "^Type: $2\$" "$work/$1.default" || fail "$1: pprof does not show $2 unless told"
}

# check_samples RUN INTERVAL_NS: RUN's CPU SAMPLES total in $samples,
# failing if it has none, and pprof's samples and cpu (the samples times
# INTERVAL_NS) against the table.
check_samples() {
    samples=$(sed -n 's/^CPU SAMPLES BEGIN (total = \([0-9]*\)) .*/\1/p' "$work/$1.txt")
    [ "${samples:-0}" -gt 0 ] || fail "$1: no CPU samples were taken"
    check_top "$1" "$work/$1.pb.gz" samples samples
    check_top "$1" "$work/$1.pb.gz" cpu cpu "$2"
}

for gc in "$@"; do
    run "heap_$gc" heap=sites,cpu=times,folded_value=alloc_space "$trees" 10 --heap=512k --young=64k
    grep -q "the VM's heap agrees" "$work/heap_$gc.err" || fail "heap_$gc: $(grep hprof "$work/heap_$gc.err")"
    check_top "heap_$gc" "$work/heap_$gc.pb.gz" alloc_space alloc_bytes
    check_top "heap_$gc" "$work/heap_$gc.pb.gz" alloc_objects alloc_objects
    check_top "heap_$gc" "$work/heap_$gc.pb.gz" inuse_space live_bytes
    check_top "heap_$gc" "$work/heap_$gc.pb.gz" inuse_objects live_objects
    check_top "heap_$gc" "$work/heap_$gc.pb.gz" calls calls
    check_default "heap_$gc" inuse_space
    top=$(pprof "$work/heap_$gc.pb.gz" -sample_index=alloc_space | top_rows | head -n 1)
    [ "${top%% *}" = Tree.make ] || fail "heap_$gc: the top allocating function is '${top%% *}', not Tree.make"
    cmp -s "$work/heap_$gc.alloc_space.got" "$work/heap_$gc.inuse_space.got" &&
        fail "heap_$gc: nothing was collected: inuse_space is alloc_space"
    check_folded "heap_$gc" alloc_bytes

    run "cpu_$gc" cpu=times,folded_value=calls "$trees" 10 --heap=512k --young=64k
    check_default "cpu_$gc" cpu
    check_top "cpu_$gc" "$work/cpu_$gc.pb.gz" calls calls
    check_folded "cpu_$gc" calls

    run "samples_$gc" cpu=samples,interval=1,folded_value=samples "$fib" 35
    check_default "samples_$gc" cpu
    check_period "samples_$gc" cpu nanoseconds 1000000
    check_samples "samples_$gc" 1000000
    fib_samples=$samples
    check_folded "samples_$gc" samples

    run "both_$gc" heap=sites,cpu=samples,interval=2,folded_value=cpu "$trees" 12 --heap=4m
    grep -q "the VM's heap agrees" "$work/both_$gc.err" || fail "both_$gc: $(grep hprof "$work/both_$gc.err")"
    check_default "both_$gc" inuse_space
    check_period "both_$gc" space bytes 1
    check_top "both_$gc" "$work/both_$gc.pb.gz" alloc_space alloc_bytes
    check_samples "both_$gc" 2000000
    trees_samples=$samples
    check_folded "both_$gc" cpu 2000000
done
echo "$# collectors: pprof's totals and functions and the folded stacks agree with the SITES, CPU TIME and CPU" \
     "SAMPLES tables ($(wc -l < "$work/heap_$gc.folded") heap stacks, $(wc -l < "$work/cpu_$gc.folded") call stacks;" \
     "the last collector's fib 35: $fib_samples samples, binary_trees 12: $trees_samples)"
