#!/bin/sh
# hprof_sampled.sh -- hprof's sampled sites (sample=BYTES) estimate what
# heap=sites counts exactly, under every collector.
#
#   hprof_sampled.sh VMRUN PROGRAM COLLECTOR...
#
# Runs PROGRAM with -agentlib:hprof=heap=sites (exact), with
# -agentlib:hprof=sample=0,sample_live=y, with sample=1024,sample_live=y
# --seed=1 and with sample=1024 --seed=1 (no live estimates) under each
# collector, with pprof= each time, and checks that
#   - the sampled table says it holds estimates, with the interval,
#   - at interval 0 (every allocation sampled) the sampled table's rows,
#     live and allocated, equal heap=sites' rows, and `go tool pprof -top`
#     shows the same for each of alloc_space, alloc_objects, inuse_space and
#     inuse_objects, its comment saying the values are exact;
#   - at 1024, every site with at least 5% of the bytes is in both tables,
#     its estimated allocated bytes and objects within 10% of the exact
#     totals, and all sites' allocated bytes within 5%;
#   - at 1024, the live estimates are within four standard deviations of
#     the exact live counts, per site with at least 5% of the live bytes
#     and in all: n live objects of s bytes, each sampled with probability
#     p = 1 - exp(-s / 1024) and then counted as 1 / p objects and s / p
#     bytes, give an estimate with variance n (1 - p) / p objects and
#     n s^2 (1 - p) / p bytes (docs/hprof.md, "What an estimate is");
#     the pprof comment says they are estimates and the period is 1024;
#   - the sampled table's allocated estimates are the same under every
#     collector (the samples depend only on the bytes allocated and the
#     seed; the live ones depend on when the collector ran);
#   - without sample_live=y the table is labelled as allocated estimates
#     only, has no live columns, holds the same allocated estimates, and
#     its pprof profile has alloc_space and no inuse_space.
# `go tool pprof` runs with a HOME and caches of its own, as in
# hprof_pprof.sh.
set -u
vmrun=$1 program=$2
shift 2
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/same_as_first.sh"
command -v go >/dev/null || fail "go not found: .ci/install-deps installs golang-go"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" GOCACHE="$work/gocache" PPROF_TMPDIR="$work/pprof" GOFLAGS= GOPROXY=off
mkdir -p "$HOME"

# rows FILE LIVE-BYTES-COLUMN TRACE-COLUMN CLASS-COLUMN: one line per SITES
# row, "frames | class live-bytes live-objects bytes objects", the frames
# those of its trace; the four counts are the columns from LIVE-BYTES-COLUMN on.
rows() {
    awk -v b="$2" -v t="$3" -v c="$4" '
        /^TRACE /      { trace = $2; frames[trace] = ""; next }
        /^\t/          { frames[trace] = frames[trace] $1 " "; next }
        /^SITES BEGIN/ { sites = 1; next }
        /^SITES END/   { sites = 0 }
        sites && $1 ~ /^[0-9]+$/ { print frames[$t ":"] "| " $c, $b, $(b + 1), $(b + 2), $(b + 3) }' "$1" | sort
}

# top PROFILE KIND: `go tool pprof -top` of KIND, without the header lines
# that differ from run to run (time, duration, comment).
top() {
    go tool pprof -symbolize=none -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -unit=byte \
        -sample_index="$2" "$1" 2>"$work/pprof.err" | sed -n '/^ *flat /,$p' ||
        fail "go tool pprof $1: $(cat "$work/pprof.err")"
}

comment() { go tool pprof -raw "$1" 2>/dev/null | sed -n 's/^Comment: //p'; }

for gc in "$@"; do
    $vmrun --gc="$gc" -agentlib:hprof=heap=sites,cutoff=0,file="exact_$gc.txt",pprof="exact_$gc.pb.gz" \
        "$program" >/dev/null 2>"exact_$gc.err" || fail "$gc: heap=sites failed: $(tail -n 3 "exact_$gc.err")"
    $vmrun --gc="$gc" -agentlib:hprof=sample=0,sample_live=y,cutoff=0,file="every_$gc.txt",pprof="every_$gc.pb.gz" \
        "$program" >/dev/null 2>"every_$gc.err" || fail "$gc: sample=0 failed: $(tail -n 3 "every_$gc.err")"
    $vmrun --gc="$gc" --seed=1 -agentlib:hprof=sample=1024,sample_live=y,cutoff=0,file="sampled_$gc.txt",pprof="sampled_$gc.pb.gz" \
        "$program" >/dev/null 2>"sampled_$gc.err" || fail "$gc: sample=1024 failed: $(tail -n 3 "sampled_$gc.err")"
    $vmrun --gc="$gc" --seed=1 -agentlib:hprof=sample=1024,cutoff=0,file="alloc_$gc.txt",pprof="alloc_$gc.pb.gz" \
        "$program" >/dev/null 2>"alloc_$gc.err" || fail "$gc: sample=1024 alone failed: $(tail -n 3 "alloc_$gc.err")"
    grep -q '^SITES BEGIN (sampled: estimated live and allocated bytes and objects' "sampled_$gc.txt" ||
        fail "$gc: the sampled table is not labelled as estimates"
    grep -q '^sampling interval 1024 bytes, [0-9]* samples, [0-9]* of them live' "sampled_$gc.txt" ||
        fail "$gc: no interval line"
    rows "exact_$gc.txt" 4 8 9 > "exact_$gc.rows"
    rows "every_$gc.txt" 4 9 10 > "every_$gc.rows"
    rows "sampled_$gc.txt" 4 9 10 > "sampled_$gc.rows"
    [ -s "sampled_$gc.rows" ] || fail "$gc: no sampled rows"

    # Interval 0: exact.
    if ! cmp -s "exact_$gc.rows" "every_$gc.rows"; then
        diff "exact_$gc.rows" "every_$gc.rows" | head -n 10
        fail "$gc: sample=0's table is not heap=sites' table"
    fi
    for kind in alloc_space alloc_objects inuse_space inuse_objects; do
        top "exact_$gc.pb.gz" $kind > "exact_$gc.$kind"
        top "every_$gc.pb.gz" $kind > "every_$gc.$kind"
        [ -s "exact_$gc.$kind" ] && cmp -s "exact_$gc.$kind" "every_$gc.$kind" ||
            fail "$gc: pprof's $kind of sample=0 is not heap=sites'"
    done
    comment "every_$gc.pb.gz" | grep -q 'values are exact' || fail "$gc: sample=0's pprof comment: $(comment "every_$gc.pb.gz")"
    comment "sampled_$gc.pb.gz" | grep -q 'sample=1024: the heap values are estimates' ||
        fail "$gc: sample=1024's pprof comment: $(comment "sampled_$gc.pb.gz")"
    go tool pprof -raw "sampled_$gc.pb.gz" 2>/dev/null | grep -q '^Period: 1024$' || fail "$gc: sample=1024's pprof period"

    # Interval 1024: estimates.
    awk -F'|' -v gc="$gc" -v interval=1024 '
        NR == FNR { split($2, f, " "); site = $1 "|" f[1]
                    live_b[site] = f[2]; live_o[site] = f[3]; exact_b[site] = f[4]; exact_o[site] = f[5]
                    total += f[4]; live_total += f[2]; next }
        { split($2, f, " "); site = $1 "|" f[1]
          est_live_b[site] = f[2]; est_live_o[site] = f[3]; est_b[site] = f[4]; est_o[site] = f[5]
          est_total += f[4]; est_live_total += f[2] }
        function out_of(est, exact, variance) { return est - exact > 4 * sqrt(variance) + 1 || exact - est > 4 * sqrt(variance) + 1 }
        END {
            for (site in exact_b) {
                s = exact_b[site] / exact_o[site]; p = 1 - exp(-s / interval); n = live_o[site]
                var_o = n * (1 - p) / p; var_b = var_o * s * s
                live_var_total += var_b
                if (live_b[site] >= 0.05 * live_total) {
                    live_checked++
                    if (out_of(est_live_b[site], live_b[site], var_b) || out_of(est_live_o[site], live_o[site], var_o)) {
                        print "FAIL: " gc ": " site ": estimated live " est_live_b[site] " bytes " est_live_o[site] \
                              " objects, exactly " live_b[site] " and " live_o[site] " (sd " sqrt(var_b) " bytes)"; bad = 1
                    }
                }
                if (exact_b[site] < 0.05 * total) continue
                checked++
                if (!(site in est_b)) { print "FAIL: " gc ": no sample of " site; bad = 1; continue }
                db = est_b[site] / exact_b[site] - 1; do_ = est_o[site] / exact_o[site] - 1
                if (db < -0.1 || db > 0.1 || do_ < -0.1 || do_ > 0.1) {
                    print "FAIL: " gc ": " site ": estimated " est_b[site] " bytes " est_o[site] \
                          " objects, exactly " exact_b[site] " and " exact_o[site]; bad = 1
                }
            }
            if (checked < 3 || live_checked < 3) {
                print "FAIL: " gc ": only " checked " sites of 5% or more, " live_checked " of the live bytes"; bad = 1
            }
            if (est_total < 0.95 * total || est_total > 1.05 * total) {
                print "FAIL: " gc ": estimated " est_total " bytes in all, exactly " total; bad = 1
            }
            if (out_of(est_live_total, live_total, live_var_total)) {
                print "FAIL: " gc ": estimated " est_live_total " live bytes in all, exactly " live_total \
                      " (sd " sqrt(live_var_total) ")"; bad = 1
            }
            exit bad
        }' "exact_$gc.rows" "sampled_$gc.rows" || exit 1
    # The live counts depend on when the collector runs; the samples do not.
    awk -F'|' '{ split($2, f, " "); print $1 "|", f[1], f[4], f[5] }' "sampled_$gc.rows" > "sampled_$gc.alloc"
    same_as_first "$gc" "sampled_$gc.alloc" "the sampled sites' allocated estimates differ"

    # Without sample_live=y: the allocated estimates alone, the same ones.
    grep -q '^SITES BEGIN (sampled: estimated allocated bytes and objects, ordered by estimated allocated bytes' \
        "alloc_$gc.txt" || fail "$gc: sample=1024 alone: the table is not labelled as allocated estimates"
    grep -q '^sampling interval 1024 bytes, [0-9]* samples; ' "alloc_$gc.txt" || fail "$gc: sample=1024 alone: interval line"
    ! grep -q 'estimated live' "alloc_$gc.txt" || fail "$gc: sample=1024 alone has live columns"
    rows "alloc_$gc.txt" 4 7 8 | awk -F'|' '{ split($2, f, " "); print $1 "|", f[1], f[2], f[3] }' > "alloc_only_$gc.alloc"
    cmp -s "sampled_$gc.alloc" "alloc_only_$gc.alloc" ||
        fail "$gc: sample=1024 alone estimates other allocations than with sample_live=y: $(diff "sampled_$gc.alloc" "alloc_only_$gc.alloc" | head -n 4)"
    top "alloc_$gc.pb.gz" alloc_space > "alloc_$gc.alloc_space"
    [ -s "alloc_$gc.alloc_space" ] || fail "$gc: sample=1024 alone: no alloc_space in pprof"
    ! go tool pprof -top -sample_index=inuse_space "alloc_$gc.pb.gz" >/dev/null 2>&1 ||
        fail "$gc: sample=1024 alone: pprof has inuse_space"
done
echo "$# collectors: sample=0 is heap=sites exactly (text and pprof); sample=1024's estimates within 10% of the" \
     "exact allocated totals per site (the same under each) and within 4 standard deviations of the live ones;" \
     "without sample_live=y the same allocated estimates, and no live ones"
