#!/bin/sh
# excerpts_catch.sh -- excerpts.py passes pages whose sessions print what
# they show (tests/docs/pages/kept.md: a gap, an elided part of a line, a
# figure that varies, a continued command, standard error) and names each
# line of a page that has drifted (pages/drifted.md): a changed line, and
# output that goes on past a block that does not end with "...".
set -u
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$(python3 "$here/excerpts.py" "$here" /nonexistent/bin pages/kept.md 2>&1) ||
    fail "kept.md: $out"
case $out in *"4 commands in 1 pages, 0 differ"*) ;; *) fail "kept.md: $out" ;; esac
out=$(python3 "$here/excerpts.py" "$here" /nonexistent/bin pages/drifted.md 2>&1)
[ $? -eq 1 ] || fail "drifted.md: exit status not 1: $out"
for expected in \
    "pages/drifted.md:5: printf 'one\\ntwo\\n': promised 'three', printed 'two'" \
    "pages/drifted.md:11: printf 'a\\nb\\nc\\n': the output goes on with 'c' (end the excerpt with '...')" \
    "2 commands in 1 pages, 2 differ"; do
    case $out in *"$expected"*) ;; *) fail "drifted.md: no line '$expected' in: $out" ;; esac
done
echo "excerpts_catch: kept.md passes, drifted.md's two drifts are named"
