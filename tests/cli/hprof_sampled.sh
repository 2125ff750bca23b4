#!/bin/sh
# hprof_sampled.sh -- hprof's sampled sites (sample=BYTES) estimate what
# heap=sites counts exactly, under every collector.
#
#   hprof_sampled.sh VMRUN PROGRAM COLLECTOR...
#
# Runs PROGRAM with -agentlib:hprof=heap=sites (exact) and with
# -agentlib:hprof=sample=1024 --seed=1 under each collector, and checks that
#   - the sampled table says it holds estimates, with the interval,
#   - every site with at least 5% of the bytes is in both tables, its
#     estimated bytes and objects within 10% of the exact totals,
#   - the estimated bytes of all sites are within 5% of the exact total,
#   - the sampled table is the same under every collector (the samples
#     depend only on the bytes allocated and the seed).
set -u
vmrun=$1 program=$2
shift 2
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/same_as_first.sh"

# rows FILE BYTES-COLUMN OBJECTS-COLUMN TRACE-COLUMN CLASS-COLUMN: one line
# per SITES row, "frames | class bytes objects", the frames those of its trace.
rows() {
    awk -v b="$2" -v o="$3" -v t="$4" -v c="$5" '
        /^TRACE /      { trace = $2; frames[trace] = ""; next }
        /^\t/          { frames[trace] = frames[trace] $1 " "; next }
        /^SITES BEGIN/ { sites = 1; next }
        /^SITES END/   { sites = 0 }
        sites && $1 ~ /^[0-9]+$/ { print frames[$t ":"] "| " $c, $b, $o }' "$1" | sort
}

for gc in "$@"; do
    $vmrun --gc="$gc" -agentlib:hprof=heap=sites,cutoff=0,file="exact_$gc.txt" "$program" \
        >/dev/null 2>"exact_$gc.err" || fail "$gc: heap=sites failed: $(tail -n 3 "exact_$gc.err")"
    $vmrun --gc="$gc" --seed=1 -agentlib:hprof=sample=1024,cutoff=0,file="sampled_$gc.txt" "$program" \
        >/dev/null 2>"sampled_$gc.err" || fail "$gc: sample=1024 failed: $(tail -n 3 "sampled_$gc.err")"
    grep -q '^SITES BEGIN (sampled: estimated allocated bytes and objects' "sampled_$gc.txt" ||
        fail "$gc: the sampled table is not labelled as estimates"
    grep -q '^sampling interval 1024 bytes, [0-9]* samples' "sampled_$gc.txt" || fail "$gc: no interval line"
    rows "exact_$gc.txt" 6 7 8 9 > "exact_$gc.rows"
    rows "sampled_$gc.txt" 4 5 7 8 > "sampled_$gc.rows"
    [ -s "sampled_$gc.rows" ] || fail "$gc: no sampled rows"
    awk -F'|' -v gc="$gc" '
        NR == FNR { split($2, f, " "); exact_b[$1 "|" f[1]] = f[2]; exact_o[$1 "|" f[1]] = f[3]
                    total += f[2]; next }
        { split($2, f, " "); est_b[$1 "|" f[1]] = f[2]; est_o[$1 "|" f[1]] = f[3]; est_total += f[2] }
        END {
            for (site in exact_b) {
                if (exact_b[site] < 0.05 * total) continue
                checked++
                if (!(site in est_b)) { print "FAIL: " gc ": no sample of " site; bad = 1; continue }
                db = est_b[site] / exact_b[site] - 1; do_ = est_o[site] / exact_o[site] - 1
                if (db < -0.1 || db > 0.1 || do_ < -0.1 || do_ > 0.1) {
                    print "FAIL: " gc ": " site ": estimated " est_b[site] " bytes " est_o[site] \
                          " objects, exactly " exact_b[site] " and " exact_o[site]; bad = 1
                }
            }
            if (checked < 3) { print "FAIL: " gc ": only " checked " sites of 5% or more"; bad = 1 }
            if (est_total < 0.95 * total || est_total > 1.05 * total) {
                print "FAIL: " gc ": estimated " est_total " bytes in all, exactly " total; bad = 1
            }
            exit bad
        }' "exact_$gc.rows" "sampled_$gc.rows" || exit 1
    same_as_first "$gc" "sampled_$gc.rows" "the sampled sites differ"
done
echo "$# collectors: sampled estimates within 10% of the exact totals per site, the same under each"
