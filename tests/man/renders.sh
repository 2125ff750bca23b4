#!/bin/sh
# renders.sh -- a manual page formats without a single warning.
#
#   renders.sh PAGE
#
# groff with the man macros and every warning on (-ww); output is thrown
# away (-z).  Any message on standard error fails the test.
set -u
page=$1
command -v groff >/dev/null || { echo "FAIL: groff is not installed (.ci/install-deps installs groff-base)"; exit 1; }
[ -f "$page" ] || { echo "FAIL: no page $page"; exit 1; }
warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1 >/dev/null)
status=$?
if [ "$status" -ne 0 ] || [ -n "$warnings" ]; then
    echo "FAIL: $page: groff exit status $status"
    printf '%s\n' "$warnings"
    exit 1
fi
