# hprof_cpu_rows.sh -- sourced by the hprof CPU table tests
# (hprof_cpu_times.sh, hprof_cpu_samples.sh); they define fail().
#
#   cpu_rows TITLE FILE
#
# Checks FILE's "TITLE BEGIN" .. "TITLE END" table ("CPU TIME (ms)" or "CPU
# SAMPLES") for the manual's layout: the BEGIN line with its total, the
# column header, ranks 1..n by self share, self percentages that add up to
# 100 (to their rounding) and accum their running sum, and traces that are
# TRACE records whose innermost frame is the row's method.  Prints "method
# count" per method, its rows' counts summed.
cpu_rows() {
    title=$1
    shift
    grep -q "^$title BEGIN (total = [0-9]*) " "$1" || fail "$1: no $title BEGIN line"
    grep -q "^$title END\$" "$1" || fail "$1: no $title END line"
    grep -q '^rank   self  accum   count trace method$' "$1" || fail "$1: no column header"
    awk -v file="$1" -v title="$title" '
        function bad(why) { print "FAIL: " file ": " why > "/dev/stderr"; failed = 1; exit 1 }
        /^TRACE /         { trace = $2; sub(":", "", trace); first[trace] = ""; next }
        /^\t/             { if (first[trace] == "") { f = $1; sub(/\(.*/, "", f); first[trace] = f }; next }
        index($0, title " BEGIN") == 1 { table = 1; next }
        index($0, title " END") == 1   { table = 0; next }
        table && $1 ~ /^[0-9]+$/ {
            if ($1 != ++rank) bad("rank " $1 " where " rank " was due")
            self = $2; sub("%", "", self); self += 0; accum = $3; sub("%", "", accum); accum += 0
            total += self
            step = accum - last_accum
            if (step - self > 0.011 || self - step > 0.011) bad("accum " accum " is not " last_accum " + " self)
            if (rank > 1 && self > last_self) bad("rank " rank " has more self time than rank " rank - 1)
            last_accum = accum; last_self = self
            if (!($5 in first)) bad("trace " $5 " is not a TRACE record")
            if (first[$5] != $6) bad("trace " $5 " starts at " first[$5] ", the row says " $6)
            count[$6] += $4
        }
        END {
            if (failed) exit 1
            if (rank == 0) bad("no rows")
            if (last_accum < 99.99 || last_accum > 100.01) bad("accum ends at " last_accum)
            slack = 0.005 * rank + 0.01 # each self is rounded to 0.01
            if (total < 100 - slack || total > 100 + slack) bad("self percentages add up to " total)
            for (m in count) print m, count[m]
        }' "$1" || exit 1
}
