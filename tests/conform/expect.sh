#!/bin/sh
# expect.sh -- one test of the conformance runner: runs it with --junit and
# checks its exit status, its JUnit XML and its matrix (junit.py).
#
#   expect.sh STATUS TESTS [GC:PROGRAM:REGEX ...] -- VMPI-CONFORM [ARG...]
#
# STATUS  the runner's exit status (0: every cell passes, 1: some fail)
# TESTS   how many cells (testcases) it runs
# GC:PROGRAM:REGEX  a cell that must fail, with a message matching REGEX;
#         every other cell must pass
set -u
expect_status=$1 tests=$2
shift 2
here=$(dirname "$0")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
: >"$scratch/specs"
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    printf '%s\n' "$1" >>"$scratch/specs"
    shift
done
[ "${1-}" = "--" ] && shift
runner=$1
shift
"$runner" --junit "$scratch/results.xml" "$@" >"$scratch/matrix" 2>"$scratch/stderr"
status=$?
if [ "$status" -ne "$expect_status" ]; then
    echo "FAIL: vmpi-conform exited $status, expected $expect_status"
    cat "$scratch/matrix" "$scratch/stderr"
    exit 1
fi
# The specs hold regular expressions with spaces: hand them over one a line.
set --
while IFS= read -r spec; do set -- "$@" "$spec"; done <"$scratch/specs"
python3 "$here/junit.py" "$scratch/results.xml" "$scratch/matrix" "$tests" "$@" || {
    cat "$scratch/matrix"
    exit 1
}
