#!/bin/sh
# hprof_pprof.sh -- hprof's pprof= and folded= say what its own tables say,
# read back by `go tool pprof` (Debian's golang-go), under every collector
# (docs/hprof.md, "pprof and folded stacks").
#
#   hprof_pprof.sh VMRUN BINARY_TREES COLLECTOR...
#
# Under each collector, with --vmpi-strict, in a heap small enough that it
# collects:
#   - BINARY_TREES 10 with heap=sites,cpu=times,pprof=,folded=,
#     folded_value=alloc_space: for each of alloc_space, alloc_objects,
#     inuse_space, inuse_objects and calls, `go tool pprof -top` gives the
#     total of the SITES (or CPU TIME) table of the same run, and per
#     function the sum of the rows whose trace has it innermost; the top
#     heap function is Tree.make; the folded stacks are exactly the SITES
#     rows' traces, outermost frame first, then the class, with their
#     allocated bytes (rows that fold to the same stack summed), sorted;
#   - BINARY_TREES 10 with cpu=times alone, folded_value=calls: pprof shows
#     cpu unless told, and the folded stacks are the CPU TIME rows' traces
#     with their counts.
# Every figure expected is taken from the text profile of the same run.
# `go tool pprof` runs with a HOME, GOCACHE and PPROF_TMPDIR of its own and
# no symbolization, so it reads nothing but the profile and writes nothing
# outside this run's directory.
set -u
vmrun=$1 trees=$2
shift 2
fail() { echo "FAIL: $*"; exit 1; }
command -v go >/dev/null || fail "go not found: .ci/install-deps installs golang-go"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" GOCACHE="$work/gocache" PPROF_TMPDIR="$work/pprof" GOFLAGS= GOPROXY=off
mkdir -p "$HOME"

# pprof PROFILE OPTION...: `go tool pprof -top` of PROFILE, every node.
pprof() {
    profile=$1
    shift
    go tool pprof -symbolize=none -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -unit=byte "$@" \
        "$profile" 2>"$work/pprof.err" || fail "go tool pprof $* $profile: $(cat "$work/pprof.err")"
}

# top_rows: "function flat" for each row of a -top listing with a flat value.
# (-unit=byte shows every value unscaled, followed by its unit's name.)
top_rows() { awk '/^ +flat +flat%/ { rows = 1; next } rows { v = $1; sub("[a-zA-Z]+$", "", v); if (v != 0) print $6, v }'; }
top_total() { sed -n 's/.*Total samples = \([0-9]*\)[a-zA-Z]* *$/\1/p'; }

# table TEXT WHAT: the rows of TEXT's SITES or CPU TIME table with their
# traces, one per line: "frames|class|value", frames innermost first and
# separated by ";", class empty for CPU TIME; WHAT picks the value:
# live_bytes, live_objects, alloc_bytes, alloc_objects or calls.
table() {
    awk -v what="$2" '
        /^TRACE /    { trace = $2; sub(":", "", trace); frames[trace] = ""; next }
        /^\t/        { f = $1; sub(/\(.*/, "", f); frames[trace] = frames[trace] (frames[trace] == "" ? "" : ";") f; next }
        /^SITES BEGIN/           { sites = 1; next }
        /^SITES END/             { sites = 0 }
        /^CPU TIME \(ms\) BEGIN/ { cpu = 1; next }
        /^CPU TIME \(ms\) END/   { cpu = 0 }
        sites && what != "calls" && $1 ~ /^[0-9]+$/ {
            column["live_bytes"] = 4; column["live_objects"] = 5; column["alloc_bytes"] = 6; column["alloc_objects"] = 7
            print frames[$8] "|" $9 "|" $(column[what])
        }
        cpu && what == "calls" && $1 ~ /^[0-9]+$/ { print frames[$5] "||" $4 }' "$1"
}

# expected_top: from table rows, "function flat" per innermost function
# (traces without frames have none), and the total on a last line "= N".
expected_top() {
    awk -F'|' '{ split($1, f, ";"); if (f[1] != "<empty>" && f[1] != "") flat[f[1]] += $3; total += $3 }
               END { for (m in flat) if (flat[m] != 0) print m, flat[m]; print "=", total }'
}

# expected_folded: from table rows, the folded stacks: frames outermost
# first, then the class, equal stacks summed, zero values left out.
expected_folded() {
    awk -F'|' '{ n = split($1, f, ";"); s = ""; for (i = n; i >= 1; i--) s = s (s == "" ? "" : ";") f[i]
                 if (s == "") s = "<empty>"
                 if ($2 != "") s = s ";" $2
                 sum[s] += $3 }
               END { for (s in sum) if (sum[s] != 0) print s, sum[s] }' | LC_ALL=C sort
}

# check_top RUN PROFILE KIND WHAT: pprof's -top of KIND against the table.
check_top() {
    table "$work/$1.txt" "$4" | expected_top > "$work/$1.$3.expected"
    pprof "$2" -sample_index="$3" > "$work/$1.$3.top"
    total=$(top_total < "$work/$1.$3.top")
    [ "= $total" = "$(tail -n 1 "$work/$1.$3.expected")" ] ||
        fail "$1: pprof's $3 total is '$total', the table's $(tail -n 1 "$work/$1.$3.expected")"
    sed '$d' "$work/$1.$3.expected" | LC_ALL=C sort > "$work/$1.$3.want"
    top_rows < "$work/$1.$3.top" | LC_ALL=C sort > "$work/$1.$3.got"
    [ -s "$work/$1.$3.want" ] || fail "$1: no $3 in the table"
    cmp -s "$work/$1.$3.want" "$work/$1.$3.got" ||
        fail "$1: pprof's $3 per function differs from the table (< table, > pprof): $(diff "$work/$1.$3.want" "$work/$1.$3.got" | head -n 6)"
}

# check_folded RUN WHAT: RUN's folded stacks against its table's WHAT.
check_folded() {
    table "$work/$1.txt" "$2" | expected_folded > "$work/$1.folded.want"
    [ -s "$work/$1.folded.want" ] || fail "$1: no $2 in the table"
    LC_ALL=C sort -c "$work/$1.folded" 2>/dev/null || fail "$1: the folded stacks are not sorted"
    cmp -s "$work/$1.folded.want" "$work/$1.folded" ||
        fail "$1: folded stacks differ from the table's $2 (< table, > folded): $(diff "$work/$1.folded.want" "$work/$1.folded" | head -n 6)"
}

run() { # NAME OPTIONS: binary_trees 10 under $gc, its profile in $work/NAME.*
    $vmrun --gc="$gc" --vmpi-strict --heap=512k --young=64k \
        -agentlib:hprof="$2,cutoff=0,depth=6,file=$work/$1.txt,pprof=$work/$1.pb.gz,folded=$work/$1.folded" \
        "$trees" 10 >"$work/$1.out" 2>"$work/$1.err" || fail "$1: vmrun failed: $(tail -n 3 "$work/$1.err")"
    gzip -t "$work/$1.pb.gz" 2>/dev/null || fail "$1: $1.pb.gz is not gzip"
    ls "$work" | grep -q partial && fail "$1: a temporary file was left: $(ls "$work" | grep partial)"
}

for gc in "$@"; do
    run "heap_$gc" heap=sites,cpu=times,folded_value=alloc_space
    grep -q "the VM's heap agrees" "$work/heap_$gc.err" || fail "heap_$gc: $(grep hprof "$work/heap_$gc.err")"
    check_top "heap_$gc" "$work/heap_$gc.pb.gz" alloc_space alloc_bytes
    check_top "heap_$gc" "$work/heap_$gc.pb.gz" alloc_objects alloc_objects
    check_top "heap_$gc" "$work/heap_$gc.pb.gz" inuse_space live_bytes
    check_top "heap_$gc" "$work/heap_$gc.pb.gz" inuse_objects live_objects
    check_top "heap_$gc" "$work/heap_$gc.pb.gz" calls calls
    pprof "$work/heap_$gc.pb.gz" > "$work/heap_$gc.default"
    grep -q '^Type: inuse_space$' "$work/heap_$gc.default" || fail "heap_$gc: pprof does not show inuse_space unless told"
    top=$(pprof "$work/heap_$gc.pb.gz" -sample_index=alloc_space | top_rows | head -n 1)
    [ "${top%% *}" = Tree.make ] || fail "heap_$gc: the top allocating function is '${top%% *}', not Tree.make"
    cmp -s "$work/heap_$gc.alloc_space.got" "$work/heap_$gc.inuse_space.got" &&
        fail "heap_$gc: nothing was collected: inuse_space is alloc_space"
    check_folded "heap_$gc" alloc_bytes

    run "cpu_$gc" cpu=times,folded_value=calls
    pprof "$work/cpu_$gc.pb.gz" > "$work/cpu_$gc.default"
    grep -q '^Type: cpu$' "$work/cpu_$gc.default" || fail "cpu_$gc: pprof does not show cpu unless told"
    check_top "cpu_$gc" "$work/cpu_$gc.pb.gz" calls calls
    check_folded "cpu_$gc" calls
done
echo "$# collectors: pprof's totals and functions and the folded stacks agree with the SITES and CPU TIME tables" \
     "($(wc -l < "$work/heap_$gc.folded") heap stacks, $(wc -l < "$work/cpu_$gc.folded") call stacks)"
